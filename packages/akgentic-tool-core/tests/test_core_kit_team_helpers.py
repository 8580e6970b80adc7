"""The kit's helpers for reaching team actors and reading recorded tool events."""

from __future__ import annotations

from pydantic import BaseModel

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent import Akgent
from akgentic.core.agent_config import BaseConfig
from akgentic.core.agent_state import BaseState
from akgentic.tool.core.event import ToolStateEvent
from akgentic.tool.core.testing import (
    agent_at,
    record_team,
    recorded_tool_events,
    resume_team,
    settle,
    spawn_tool_agent,
    stop_team,
    team_tool_actor,
)


class Tick(BaseModel):
    n: int


class Ticker(Akgent[BaseConfig, BaseState]):
    def on_start(self) -> None:
        self.seq = 0

    def tick(self) -> int:
        self.seq += 1
        self.notify_event(
            ToolStateEvent(tool_id=self.config.name, seq=self.seq, payload=Tick(n=self.seq))
        )
        return self.seq


def test_team_tool_actor_reaches_the_live_singleton(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    first = team_tool_actor(actor_system, orchestrator, Ticker, BaseConfig(name="#Ticker"))
    again = team_tool_actor(actor_system, orchestrator, Ticker, BaseConfig(name="#Ticker"))
    assert first.tick() == 1
    assert again.tick() == 2  # the same actor


def test_recorded_tool_events_filter_by_tool_and_sort_by_seq(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    recorder = record_team(actor_system, orchestrator)
    a = team_tool_actor(actor_system, orchestrator, Ticker, BaseConfig(name="#A"))
    b = team_tool_actor(actor_system, orchestrator, Ticker, BaseConfig(name="#B"))
    for _ in range(3):
        a.tick()
    b.tick()
    settle(actor_system, orchestrator)
    events = recorded_tool_events(recorder.record, "#A")
    assert [(e.tool_id, e.seq, e.payload) for e in events] == [
        ("#A", 1, Tick(n=1)),
        ("#A", 2, Tick(n=2)),
        ("#A", 3, Tick(n=3)),
    ]
    assert sorted(e.tool_id for e in recorded_tool_events(recorder.record)) == [
        "#A",
        "#A",
        "#A",
        "#B",
    ]


def test_agent_at_gives_a_resumed_member_to_bind_cards_to(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    recorder = record_team(actor_system, orchestrator)
    spawn_tool_agent(actor_system, orchestrator, "@Alice")
    stop_team(actor_system, orchestrator)
    new_orchestrator, members = resume_team(actor_system, recorder.record.copy())
    alice = agent_at(actor_system, members["@Alice"])
    assert alice.myAddress.name == "@Alice"
    assert alice.orchestrator == new_orchestrator
