"""The state events one tool actor sent to its team, as a test reads them.

A delta actor announces each change as a ``ToolStateEvent`` numbered by ``seq``; tests of
such a tool check which events a call produced (one per change, none for a refused call)
and that the numbering has no gap. These read them from the orchestrator of a live team;
:func:`~akgentic.tool.core.testing.team.recorded_tool_events` reads a recorded history.
"""

from __future__ import annotations

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.event import ToolStateEvent
from akgentic.tool.core.testing.actors import orchestrator_events
from akgentic.tool.core.testing.waiting import settle

__all__ = ["tool_event_seqs", "tool_state_events"]


def tool_state_events(
    system: ActorSystem, orchestrator: ActorAddress, tool_id: str
) -> list[ToolStateEvent]:
    """The ``ToolStateEvent``s of the tool actor ``tool_id`` that reached the orchestrator,
    oldest first (no waiting: a delta actor emits before its call returns)."""
    return [
        event
        for event in orchestrator_events(system, orchestrator, ToolStateEvent)
        if event.tool_id == tool_id
    ]


def tool_event_seqs(system: ActorSystem, orchestrator: ActorAddress, tool_id: str) -> list[int]:
    """The ``seq`` of each state event of ``tool_id``, once the team has settled (so an
    event still on its way is counted too)."""
    settle(system, orchestrator)
    return [event.seq for event in tool_state_events(system, orchestrator, tool_id)]
