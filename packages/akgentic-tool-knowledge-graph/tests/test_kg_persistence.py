"""Persistence of the graph beyond core's standard delta-persistence tests (those run in
test_standard.py): what the deltas leave out."""

from __future__ import annotations

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.testing import (
    bind_card,
    record_team,
    recorded_tool_events,
    settle,
    spawn_tool_agent,
)
from akgentic.tool.knowledge_graph import KG_ACTOR_NAME, KnowledgeGraphTool


def test_an_entity_created_and_deleted_in_one_call_is_in_no_delta(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    recorder = record_team(actor_system, orchestrator)
    tools = bind_card(
        spawn_tool_agent(actor_system, orchestrator), KnowledgeGraphTool(vector_store=False)
    )
    tools["update_graph"](create_entities=[{"name": "Keep", "entity_type": "T"}])
    tools["update_graph"](
        create_entities=[{"name": "Temp", "entity_type": "T"}],
        delete_entities=["Temp", "Keep"],
    )
    settle(actor_system, orchestrator)
    deltas = recorded_tool_events(recorder.record, KG_ACTOR_NAME)
    assert [event.seq for event in deltas] == [1, 2]
    assert "Keep" in deltas[1].model_dump_json()  # its removal is the net change
    assert not any("Temp" in event.model_dump_json() for event in deltas)
