"""Stop and resume a team the way a persistence layer does.

A team layer persists what the orchestrator publishes and, to resume, replays it into a
new orchestrator and recreates the members. These helpers do exactly that with
akgentic-core's own API, through JSON, so a tool's persistence is tested the way it runs.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any, cast

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent import Akgent
from akgentic.core.agent_config import BaseConfig
from akgentic.core.messages.message import Message
from akgentic.core.messages.orchestrator import StartMessage, StateChangedMessage, StopMessage
from akgentic.core.orchestrator import EventSubscriber, Orchestrator
from akgentic.core.utils.deserializer import deserialize_object, import_class
from akgentic.tool.core.event import ToolStateEvent

__all__ = [
    "RecordedTeam",
    "TeamRecorder",
    "record_team",
    "recorded_tool_events",
    "resume_team",
    "stop_team",
]


@dataclass
class RecordedTeam:
    """What a persistence layer holds for a team: its messages and latest state per agent."""

    team_id: uuid.UUID
    events: list[str] = field(default_factory=list)
    states: dict[str, str] = field(default_factory=dict)
    state_count: dict[str, int] = field(default_factory=dict)

    def copy(self) -> RecordedTeam:
        """A frozen copy, as read from the store at one moment."""
        return RecordedTeam(
            self.team_id, list(self.events), dict(self.states), dict(self.state_count)
        )

    def messages(self) -> list[Message]:
        """The recorded history, deserialized, oldest first."""
        return [deserialize_object(json.loads(text)) for text in self.events]

    def state_of(self, name: str) -> Any:
        """The latest recorded state of the agent called ``name``."""
        for text in self.states.values():
            message = deserialize_object(json.loads(text))
            if message.sender is not None and message.sender.name == name:
                return message.state
        raise KeyError(f"no state recorded for {name!r}")

    def snapshots_of(self, name: str) -> int:
        """How many state snapshots the agent called ``name`` published (0 if none)."""
        for key, text in self.states.items():
            message = deserialize_object(json.loads(text))
            if message.sender is not None and message.sender.name == name:
                return self.state_count[key]
        return 0


class TeamRecorder:
    """Orchestrator subscriber storing each message as JSON, as a real event store would.

    State snapshots are kept latest-per-agent (and counted); everything else is appended.
    """

    def __init__(self, team_id: uuid.UUID) -> None:
        self.record = RecordedTeam(team_id)

    def on_message(self, msg: Message) -> None:
        text = msg.model_dump_json()
        if isinstance(msg, StateChangedMessage) and msg.sender is not None:
            key = str(msg.sender.agent_id)
            self.record.states[key] = text
            self.record.state_count[key] = self.record.state_count.get(key, 0) + 1
        else:
            self.record.events.append(text)


def record_team(system: ActorSystem, orchestrator_address: ActorAddress) -> TeamRecorder:
    """Subscribe a :class:`TeamRecorder` to the team's orchestrator."""
    recorder = TeamRecorder(orchestrator_address.team_id)
    # Only on_message matters here; the orchestrator skips lifecycle hooks a subscriber lacks.
    orch = system.proxy_ask(orchestrator_address, Orchestrator)
    orch.subscribe(cast(EventSubscriber, recorder))
    return recorder


def stop_team(system: ActorSystem, orchestrator_address: ActorAddress) -> None:
    """Stop the team (members first, then tool actors) and wait until it is down."""
    system.proxy_ask(orchestrator_address, Orchestrator).stop().wait()


def resume_team(
    system: ActorSystem, recorded: RecordedTeam, *, restore_states: bool = True
) -> tuple[ActorAddress, dict[str, ActorAddress]]:
    """Bring a recorded team back the way a team layer does.

    A new orchestrator with the same team id replays the history; every member that had
    started and not stopped is recreated with its class, agent id and configuration; with
    ``restore_states`` each gets its latest recorded state through ``init_state``. Returns
    the new orchestrator and the recreated members by name.
    """
    address = system.createActor(
        Orchestrator,
        config=BaseConfig(name="@Orchestrator", role="Orchestrator"),
        team_id=recorded.team_id,
    )
    orch = system.proxy_ask(address, Orchestrator)
    history = recorded.messages()
    for message in history:
        orch.restore_message(message)
    states = _latest_states(recorded) if restore_states else {}
    members: dict[str, ActorAddress] = {}
    for message in _live_starts(history):
        sender = message.sender
        assert sender is not None  # _live_starts keeps attributed messages only
        actor_class = import_class(sender.serialize()["__actor_type__"])
        member = orch.createActor(actor_class, agent_id=sender.agent_id, config=message.config)
        if sender.agent_id in states:
            system.proxy_ask(member, Akgent).init_state(states[sender.agent_id])
        members[sender.name] = member
    orch.end_restoration()
    return address, members


def _latest_states(recorded: RecordedTeam) -> dict[uuid.UUID, Any]:
    """The latest recorded state of each agent, by agent id."""
    messages = (deserialize_object(json.loads(text)) for text in recorded.states.values())
    return {message.sender.agent_id: message.state for message in messages}


def _live_starts(history: list[Message]) -> list[StartMessage]:
    """Start messages of the members still running when the history ends (not the
    orchestrator: the resumed team has a new one)."""
    stopped = {m.sender.agent_id for m in history if isinstance(m, StopMessage) and m.sender}
    return [
        message
        for message in history
        if isinstance(message, StartMessage)
        and message.sender is not None
        and message.sender.agent_id not in stopped
        and message.sender.role != "Orchestrator"
    ]


def recorded_tool_events(
    recorded: RecordedTeam, tool_id: str | None = None
) -> list[ToolStateEvent]:
    """The ``ToolStateEvent``s of a recorded history (of ``tool_id`` only, when given),
    deserialized from the stored JSON and ordered by ``seq``: what a client rebuilding a
    tool's state from the persisted stream would read."""
    events: list[ToolStateEvent] = []
    for message in recorded.messages():
        event = getattr(message, "event", None)
        if isinstance(event, ToolStateEvent) and (tool_id is None or event.tool_id == tool_id):
            events.append(event)
    return sorted(events, key=lambda event: event.seq)
