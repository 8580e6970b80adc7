"""Hiring returns the member's address, and firing stops the member whatever the agent's hook.

akgentic-agent's ``BaseAgent.on_hire`` / ``on_fire`` only take note (they do nothing), and
it hires through the ``hire_member`` command expecting an ``ActorAddress`` back. These tests
use an agent with hooks like that, in a real team.
"""

from __future__ import annotations

import pytest
from akgentic_team_testkit import Gates, profile, register_profiles, team_names, tools_by_name

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core import ToolFactory
from akgentic.tool.core.testing import ToolTestAgent, eventually, spawn_tool_agent
from akgentic.tool.team import TeamTool
from akgentic.tool.team import team as team_module


class NotingAgent(ToolTestAgent):
    """Hooks that only record, as akgentic-agent's BaseAgent's do nothing at all."""

    def on_hire(self, address: ActorAddress) -> None:
        self.hired.append(address)

    def on_fire(self, address: ActorAddress) -> None:
        self.fired.append(address)


@pytest.fixture
def lead(actor_system: ActorSystem, orchestrator: ActorAddress) -> NotingAgent:
    register_profiles(
        actor_system, orchestrator, [profile("Developer"), profile("Reviewer", name="@Rev")]
    )
    agent = spawn_tool_agent(actor_system, orchestrator, "@Lead", agent_class=NotingAgent)
    assert isinstance(agent, NotingAgent)
    return agent


def test_hire_member_command_returns_the_new_members_address(
    actor_system: ActorSystem, orchestrator: ActorAddress, lead: NotingAgent
) -> None:
    registry = ToolFactory([TeamTool()], observer=lead).get_command_registry()
    hire = registry.callable("hire_member")  # what BaseAgent.hire_member calls
    address = hire("Reviewer")
    assert isinstance(address, ActorAddress)
    assert (address.name, address.role) == ("@Rev", "Reviewer")
    assert address.is_alive()
    assert lead.hired == [address]
    assert "@Rev" in team_names(actor_system, orchestrator)


def test_firing_stops_the_member_when_the_hook_only_takes_note(
    actor_system: ActorSystem, orchestrator: ActorAddress, lead: NotingAgent
) -> None:
    tools = tools_by_name(ToolFactory([TeamTool()], observer=lead).get_tools())
    tools["hire_members"](["Developer", "Reviewer"])
    developer, reviewer = lead.hired
    assert tools["fire_members"](["@Developer"]) == "Fired @Developer."
    assert lead.fired == [developer]
    assert not developer.is_alive()
    eventually(lambda: "@Developer" not in team_names(actor_system, orchestrator))
    assert reviewer.is_alive()
    assert "@Rev" in team_names(actor_system, orchestrator)


def test_fire_member_command_stops_the_member(
    actor_system: ActorSystem, orchestrator: ActorAddress, lead: NotingAgent
) -> None:
    commands = ToolFactory([TeamTool()], observer=lead).commands
    member = commands.call("hire_member", "Developer")
    assert commands.execute("/fire_member @Developer") == "Fired @Developer."
    assert not member.is_alive()
    eventually(lambda: "@Developer" not in team_names(actor_system, orchestrator))


def test_a_busy_member_stops_once_its_handler_returns(
    actor_system: ActorSystem, orchestrator: ActorAddress, lead: NotingAgent, gates: Gates
) -> None:
    tools = tools_by_name(ToolFactory([TeamTool()], observer=lead).get_tools())
    tools["hire_members"](["Developer"])
    (developer,) = lead.hired
    release = gates.hold(lead, developer, "a long task")
    answer = tools["fire_members"](["@Developer"])
    assert answer == (
        "Fired @Developer. @Developer will stop once it finishes the message in hand."
    )
    assert developer.is_alive()
    release.set()
    eventually(lambda: not developer.is_alive())
    eventually(lambda: "@Developer" not in team_names(actor_system, orchestrator))


def test_several_fired_at_once_and_several_still_busy(
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    lead: NotingAgent,
    gates: Gates,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The answer waits up to _FIRE_WAIT_SECONDS (3 s) for busy members: shortened to keep the
    # test fast, long enough for the idle member to stop on a loaded runner (the busy ones
    # outlast it either way).
    monkeypatch.setattr(team_module, "_FIRE_WAIT_SECONDS", 1.0)
    tools = tools_by_name(ToolFactory([TeamTool()], observer=lead).get_tools())
    tools["hire_members"](["Developer", "Developer", "Reviewer"])
    first, second, reviewer = lead.hired
    gates.hold(lead, second, "a long task")
    gates.hold(lead, reviewer, "a long review")
    answer = tools["fire_members"](["@Developer", "@Developer-2", "@Rev"])
    assert answer == (
        "Fired @Developer, @Developer-2, @Rev. "
        "@Developer-2, @Rev will stop once they finish the message in hand."
    )
    assert not first.is_alive()
    gates.release_all()
    eventually(lambda: not second.is_alive() and not reviewer.is_alive())


def test_a_member_the_hook_already_stopped_is_fine(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    """Core's kit agent stops the member in its own on_fire; firing still answers cleanly."""
    register_profiles(actor_system, orchestrator, [profile("Developer")])
    tools = tools_by_name(ToolFactory([TeamTool()], observer=tool_agent).get_tools())
    tools["hire_members"](["Developer"])
    assert tools["fire_members"](["@Developer"]) == "Fired @Developer."
    assert not tool_agent.fired[0].is_alive()
