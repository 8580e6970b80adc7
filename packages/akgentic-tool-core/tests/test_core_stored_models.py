"""Core models validate what the predecessor stored, by its field names, and round-trip.

Core has no card of its own, so the records below are the shapes the predecessor's core
models were stored in: a param's common fields (``expose``, ``instructions``), cards inside
an agent configuration (tagged with ``__model__``), state events, command discovery models
and deferred payloads. Each is validated, dumped and validated again.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import pytest

from akgentic.core.agent_config import BaseConfig
from akgentic.core.utils.deserializer import deserialize_object
from akgentic.core.utils.serializer import SerializableBaseModel
from akgentic.tool.core import (
    COMMAND,
    SYSTEM_PROMPT,
    TOOL_CALL,
    BaseToolParam,
    Channels,
    CommandArg,
    CommandDescriptor,
    CommandsAnnouncedEvent,
    ToolCard,
    ToolFactory,
    ToolStateEvent,
    resolve_param,
)
from akgentic.tool.core.deferred import DeferredPayload
from akgentic.tool.core.testing import ToolTestAgent

MODULE = __name__


class Lookup(BaseToolParam):
    expose: set[Channels] = {TOOL_CALL, COMMAND}
    max_results: int = 5


class Overview(BaseToolParam):
    expose: set[Channels] = {SYSTEM_PROMPT}


class GlossaryTool(ToolCard):
    terms: dict[str, str] = {}
    lookup: bool | Lookup = True
    overview: bool | Overview = False

    def get_tools(self) -> list[Callable[..., Any]]:
        param = resolve_param(self.lookup, Lookup)
        if param is None or not param.exposes(TOOL_CALL):
            return []
        terms, limit = self.terms, param.max_results

        def lookup(prefix: str) -> list[str]:
            """Definitions of the terms starting with prefix."""
            return [f"{t}: {d}" for t, d in sorted(terms.items()) if t.startswith(prefix)][:limit]

        return [param.describe(lookup)]


class IndexTool(ToolCard):
    """Written the predecessor's way: ``depends_on`` computed by a property."""

    use_glossary: bool = True

    @property
    def depends_on(self) -> list[str]:
        return ["GlossaryTool"] if self.use_glossary else []


class AgentProfile(BaseConfig):
    """Stands for an agent configuration holding its cards (``tools: list[ToolCard]``)."""

    tools: list[ToolCard] = []


class Delta(SerializableBaseModel):
    added: list[str]


STORED_PARAMS: list[dict[str, Any]] = [
    {"expose": ["tool_call"], "instructions": None},
    {"expose": ["tool_call", "command"], "instructions": "Prefer exact terms.", "max_results": 2},
    {"expose": [], "instructions": "disabled everywhere"},
    {"instructions": "only guidance"},
    {"expose": ["command", "tool_call"], "__model__": f"{MODULE}.Lookup"},
]


@pytest.mark.parametrize("stored", STORED_PARAMS)
def test_param_common_fields_validate_and_round_trip(stored: dict[str, Any]) -> None:
    param = Lookup.model_validate(stored)
    if "expose" in stored:
        assert param.expose == {Channels(c) for c in stored["expose"]}
    else:
        assert param.expose == {TOOL_CALL, COMMAND}
    assert param.instructions == stored.get("instructions")
    dumped = param.model_dump()
    assert dumped["__model__"] == f"{MODULE}.Lookup"
    assert Lookup.model_validate(dumped) == param
    assert Lookup.model_validate_json(param.model_dump_json()) == param


def test_base_param_defaults_and_format_docstring() -> None:
    param = BaseToolParam()
    assert param.expose == {TOOL_CALL}
    assert BaseToolParam().expose is not param.expose  # each instance has its own set
    assert param.format_docstring("Find terms.") == "Find terms."
    guided = BaseToolParam(instructions="Use the team's spelling.")
    assert guided.format_docstring("Find terms.\n") == "Find terms.\n\nUse the team's spelling."
    assert guided.format_docstring("") == "Use the team's spelling."


def test_stored_cards_in_an_agent_profile_come_back_as_their_classes(
    tool_agent: ToolTestAgent,
) -> None:
    stored = {
        "name": "@Writer",
        "role": "Writer",
        "tools": [
            {
                "__model__": f"{MODULE}.GlossaryTool",
                "terms": {"SLA": "service level agreement", "SLO": "objective"},
                "lookup": {
                    "__model__": f"{MODULE}.Lookup",
                    "expose": ["tool_call"],
                    "instructions": "Quote the definition.",
                    "max_results": 1,
                },
                "overview": False,
            },
            {"__model__": f"{MODULE}.IndexTool", "use_glossary": True},
        ],
    }
    profile = AgentProfile.model_validate(stored)
    glossary, index = profile.tools
    assert isinstance(glossary, GlossaryTool)
    assert isinstance(index, IndexTool)
    assert isinstance(glossary.lookup, Lookup)
    assert glossary.lookup.max_results == 1

    again = AgentProfile.model_validate(json.loads(json.dumps(profile.model_dump())))
    assert again.tools == profile.tools

    # The restored cards work: wired in dependency order, the tool carries the guidance.
    factory = ToolFactory(list(reversed(again.tools)), observer=tool_agent)
    assert [type(c).__name__ for c in factory.tool_cards] == ["GlossaryTool", "IndexTool"]
    (lookup,) = factory.get_tools()
    assert lookup("SL") == ["SLA: service level agreement"]
    assert (lookup.__doc__ or "").endswith("Quote the definition.")


def test_a_card_held_by_its_base_type_dumps_as_its_own_class() -> None:
    class Holder(SerializableBaseModel):
        card: ToolCard

    dumped = Holder(card=GlossaryTool(terms={"a": "b"})).model_dump()
    assert dumped["card"]["__model__"] == f"{MODULE}.GlossaryTool"
    assert dumped["card"]["terms"] == {"a": "b"}
    back = Holder.model_validate(dumped)
    assert back.card == GlossaryTool(terms={"a": "b"})


@pytest.mark.filterwarnings('ignore:Field name "depends_on":UserWarning')
def test_depends_on_is_a_property_and_a_stated_list_round_trips() -> None:
    assert isinstance(ToolCard.__dict__["depends_on"], property)
    assert IndexTool().depends_on == ["GlossaryTool"]
    assert IndexTool(use_glossary=False).depends_on == []
    assert "depends_on" not in IndexTool().model_dump()
    stated = GlossaryTool(depends_on=["IndexTool"])
    assert stated.depends_on == ["IndexTool"]
    assert GlossaryTool.model_validate(stated.model_dump()).depends_on == ["IndexTool"]
    plain = GlossaryTool()
    plain.depends_on = ["IndexTool"]
    assert plain.model_dump()["depends_on"] == ["IndexTool"]
    with pytest.raises(TypeError, match="depends_on is a property"):

        class FieldStyle(ToolCard):
            depends_on: list[str] = ["X"]  # type: ignore[assignment]


def test_a_partial_dump_is_plain_fields() -> None:
    card = GlossaryTool(terms={"a": "b"})
    assert card.model_dump(include={"terms"}) == {"terms": {"a": "b"}}


def test_stored_tool_state_event_validates_and_round_trips() -> None:
    event_id, team_id = uuid.uuid4(), uuid.uuid4()
    stored = {
        "__model__": "akgentic.tool.core.event.ToolStateEvent",
        "id": str(event_id),
        "parent_id": None,
        "team_id": str(team_id),
        "timestamp": "2025-06-01T12:00:00+00:00",
        "sender": None,
        "recipient": None,
        "display_type": "other",
        "tool_id": "#PlanningTool",
        "seq": 3,
        "payload": {"__model__": f"{MODULE}.Delta", "added": ["task 1"]},
    }
    event = deserialize_object(stored)
    assert isinstance(event, ToolStateEvent)
    assert (event.id, event.team_id, event.tool_id, event.seq) == (
        event_id,
        team_id,
        "#PlanningTool",
        3,
    )
    assert event.payload == Delta(added=["task 1"])
    again = deserialize_object(json.loads(json.dumps(event.model_dump())))
    assert again.payload == event.payload
    assert (again.id, again.seq, again.display_type) == (event.id, 3, "other")


def test_stored_command_discovery_models_validate_and_round_trip(
    tool_agent: ToolTestAgent,
) -> None:
    stored_arg = {"name": "role", "type": "str", "required": True, "description": None}
    stored_descriptor = {
        "name": "hire_member",
        "description": "Hire a team member.",
        "args": [stored_arg],
        "tool_card": "TeamTool",
    }
    stored_event = {
        "__model__": "akgentic.tool.core.event.CommandsAnnouncedEvent",
        "agent": tool_agent.myAddress.serialize(),
        "commands": [stored_descriptor],
    }
    arg = CommandArg.model_validate(stored_arg)
    assert arg.description is None
    assert CommandArg.model_validate(arg.model_dump()) == arg
    descriptor = CommandDescriptor.model_validate(stored_descriptor)
    assert descriptor.tool_card == "TeamTool"
    assert CommandDescriptor.model_validate(descriptor.model_dump()) == descriptor
    event = deserialize_object(stored_event)
    assert isinstance(event, CommandsAnnouncedEvent)
    assert event.agent.name == "@Tester"
    assert event.commands == [descriptor]
    again = deserialize_object(json.loads(json.dumps(event.model_dump())))
    assert again.commands == event.commands
    assert again.agent.agent_id == tool_agent.myAddress.agent_id


def test_stored_deferred_payload_validates_and_round_trips() -> None:
    payload = DeferredPayload.model_validate({"deferred_key": "msg-42"})
    assert payload.deferred_key == "msg-42"
    assert DeferredPayload.model_validate(payload.model_dump()) == payload
