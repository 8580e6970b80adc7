"""ToolStateEvent and the discovery models: serialization through akgentic-core."""

from __future__ import annotations

import json
import uuid
import warnings

import pytest
from pydantic import BaseModel

from akgentic.core.utils.deserializer import deserialize_object
from akgentic.core.utils.serializer import SerializableBaseModel
from akgentic.tool.core import (
    CommandArg,
    CommandDescriptor,
    CommandsAnnouncedEvent,
    ToolStateEvent,
)
from akgentic.tool.core.testing import ToolTestAgent, eventually, orchestrator_events


class PlainDelta(BaseModel):
    added: list[str]
    owner: uuid.UUID


class TaggedDelta(SerializableBaseModel):
    removed: list[int]


def _round_trip(event: object) -> object:
    assert isinstance(event, BaseModel)
    wire = json.loads(json.dumps(event.model_dump()))
    return deserialize_object(wire)


def test_plain_model_payload_keeps_its_concrete_class() -> None:
    owner = uuid.uuid4()
    event = ToolStateEvent(
        tool_id="#KnowledgeGraphTool", seq=7, payload=PlainDelta(added=["a"], owner=owner)
    )
    back = _round_trip(event)
    assert isinstance(back, ToolStateEvent)
    assert isinstance(back.payload, PlainDelta)
    assert back.payload == PlainDelta(added=["a"], owner=owner)
    assert (back.tool_id, back.seq, back.id) == ("#KnowledgeGraphTool", 7, event.id)


def test_serializable_payload_keeps_its_concrete_class() -> None:
    back = _round_trip(
        ToolStateEvent(tool_id="#PlanningTool", seq=1, payload=TaggedDelta(removed=[3]))
    )
    assert isinstance(back, ToolStateEvent)
    assert isinstance(back.payload, TaggedDelta)
    assert back.payload.removed == [3]


def test_seq_starts_at_one() -> None:
    with pytest.raises(ValueError, match="greater than or equal to 1"):
        ToolStateEvent(tool_id="#X", seq=0, payload=TaggedDelta(removed=[]))


def test_commands_announcement_round_trips(tool_agent: ToolTestAgent) -> None:
    event = CommandsAnnouncedEvent(
        agent=tool_agent.myAddress,
        commands=[
            CommandDescriptor(
                name="hire_member",
                description="Hire",
                args=[CommandArg(name="role", type="str", required=True)],
                tool_card="TeamTool",
            )
        ],
    )
    back = _round_trip(event)
    assert isinstance(back, CommandsAnnouncedEvent)
    assert back.commands == event.commands
    assert back.agent.agent_id == tool_agent.myAddress.agent_id
    assert back.agent_name == "@Tester"


def test_event_reaches_the_orchestrator_stream(
    actor_system, orchestrator, tool_agent: ToolTestAgent
) -> None:  # type: ignore[no-untyped-def]
    tool_agent.notify_event(
        ToolStateEvent(tool_id="#X", seq=1, payload=PlainDelta(added=["n"], owner=uuid.uuid4()))
    )
    (event,) = eventually(lambda: orchestrator_events(actor_system, orchestrator, ToolStateEvent))
    assert isinstance(event.payload, PlainDelta)
    assert event.payload.added == ["n"]


def test_persisted_tag_at_the_old_path_still_deserializes() -> None:
    wire = ToolStateEvent(tool_id="#X", seq=2, payload=TaggedDelta(removed=[1])).model_dump()
    wire["__model__"] = "akgentic.tool.event.ToolStateEvent"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        back = deserialize_object(json.loads(json.dumps(wire)))
    assert isinstance(back, ToolStateEvent)
    assert any(issubclass(w.category, DeprecationWarning) for w in caught)
