"""The kit's team helpers start members as documented: a tool agent is cast as "Tester"
unless told otherwise, and the orchestrator's event list can be narrowed to one class."""

from __future__ import annotations

from pydantic import BaseModel

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.testing import eventually, orchestrator_events, spawn_tool_agent


class Rang(BaseModel):
    bell: str


class Knocked(BaseModel):
    door: str


def test_a_spawned_tool_agent_is_cast_as_a_tester_by_default(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    agent = spawn_tool_agent(actor_system, orchestrator, name="@Ada")
    assert (agent.myAddress.name, agent.myAddress.role) == ("@Ada", "Tester")


def test_a_spawned_tool_agent_takes_the_role_it_is_given(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    agent = spawn_tool_agent(actor_system, orchestrator, name="@Bo", role="Reviewer")
    assert agent.myAddress.role == "Reviewer"


def test_orchestrator_events_keeps_only_the_class_asked_for(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    agent = spawn_tool_agent(actor_system, orchestrator)
    agent.notify_event(Rang(bell="front"))
    agent.notify_event(Knocked(door="back"))
    eventually(lambda: len(orchestrator_events(actor_system, orchestrator)) >= 2)
    assert orchestrator_events(actor_system, orchestrator, Knocked) == [Knocked(door="back")]
    everything = orchestrator_events(actor_system, orchestrator)
    assert Rang(bell="front") in everything
    assert Knocked(door="back") in everything
