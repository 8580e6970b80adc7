"""The kit's stop/resume helpers bring a team back with its members and tool-actor state,
under an orchestrator named and cast like the first."""

from __future__ import annotations

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent import Akgent
from akgentic.core.agent_config import BaseConfig
from akgentic.core.agent_state import BaseState
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core.testing import (
    ToolTestAgent,
    record_team,
    resume_team,
    settle,
    spawn_tool_agent,
    stop_team,
)
from akgentic.tool.core.testing.team import RecordedTeam


class CounterState(BaseState):
    count: int = 0


class Counter(Akgent[BaseConfig, CounterState]):
    def on_start(self) -> None:
        self.state = CounterState().observer(self)

    def bump(self) -> int:
        self.state.count += 1
        self.state.notify_state_change()
        return self.state.count

    def value(self) -> int:
        return self.state.count


def test_resume_recreates_members_and_restores_state(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    recorder = record_team(actor_system, orchestrator)
    spawn_tool_agent(actor_system, orchestrator, name="@Alice")
    orch = actor_system.proxy_ask(orchestrator, Orchestrator)
    counter = actor_system.proxy_ask(
        orch.getChildrenOrCreate(Counter, BaseConfig(name="#Counter")), Counter
    )
    for _ in range(3):
        counter.bump()
    settle(actor_system, orchestrator)
    stop_team(actor_system, orchestrator)
    recorded = recorder.record.copy()
    assert recorded.state_of("#Counter").count == 3
    assert sum(recorded.state_count.values()) >= 3

    new_orchestrator, members = resume_team(actor_system, recorded)
    assert set(members) == {"@Alice", "#Counter"}
    assert new_orchestrator.team_id == orchestrator.team_id
    assert actor_system.proxy_ask(members["#Counter"], Counter).value() == 3
    alice = actor_system.proxy_ask(members["@Alice"], ToolTestAgent).itself()
    assert alice.orchestrator == new_orchestrator


def test_resume_without_states_starts_members_fresh(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    recorder = record_team(actor_system, orchestrator)
    orch = actor_system.proxy_ask(orchestrator, Orchestrator)
    counter = actor_system.proxy_ask(
        orch.getChildrenOrCreate(Counter, BaseConfig(name="#Counter")), Counter
    )
    counter.bump()
    stop_team(actor_system, orchestrator)
    _, members = resume_team(actor_system, recorder.record.copy(), restore_states=False)
    assert actor_system.proxy_ask(members["#Counter"], Counter).value() == 0


def _recorded_counter(system: ActorSystem, orchestrator: ActorAddress, bumps: int) -> RecordedTeam:
    recorder = record_team(system, orchestrator)
    orch = system.proxy_ask(orchestrator, Orchestrator)
    counter = system.proxy_ask(
        orch.getChildrenOrCreate(Counter, BaseConfig(name="#Counter")), Counter
    )
    for _ in range(bumps):
        counter.bump()
    settle(system, orchestrator)
    stop_team(system, orchestrator)
    return recorder.record.copy()


def test_a_resumed_team_has_an_orchestrator_named_and_cast_as_the_first(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    recorded = _recorded_counter(actor_system, orchestrator, 2)
    new_orchestrator, members = resume_team(actor_system, recorded)
    assert (new_orchestrator.name, new_orchestrator.role) == ("@Orchestrator", "Orchestrator")
    assert (new_orchestrator.name, new_orchestrator.role) == (orchestrator.name, orchestrator.role)
    assert set(members) == {"#Counter"}
    assert actor_system.proxy_ask(members["#Counter"], Counter).value() == 2
    team = actor_system.proxy_ask(new_orchestrator, Orchestrator).get_team()
    assert [member.name for member in team] == ["#Counter"]
