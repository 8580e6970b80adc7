"""The kit's reading of one tool actor's state events: only that tool's, oldest first;
the seqs once the team has settled."""

from __future__ import annotations

from pydantic import BaseModel

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.event import ToolStateEvent
from akgentic.tool.core.testing import ToolTestAgent, tool_event_seqs, tool_state_events


class _Delta(BaseModel):
    note: str


def _emit(agent: ToolTestAgent, tool_id: str, seq: int) -> None:
    agent.notify_event(ToolStateEvent(tool_id=tool_id, seq=seq, payload=_Delta(note=tool_id)))


def test_only_the_named_tools_events_in_order(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    _emit(tool_agent, "#Mine", 1)
    _emit(tool_agent, "#Other", 1)
    _emit(tool_agent, "#Mine", 2)
    assert tool_event_seqs(actor_system, orchestrator, "#Mine") == [1, 2]
    events = tool_state_events(actor_system, orchestrator, "#Other")
    assert [(event.tool_id, event.seq) for event in events] == [("#Other", 1)]
    assert isinstance(events[0].payload, _Delta)


def test_a_tool_that_sent_nothing_has_no_events(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    _emit(tool_agent, "#Other", 1)
    assert tool_event_seqs(actor_system, orchestrator, "#Mine") == []
    assert tool_state_events(actor_system, orchestrator, "#Mine") == []
