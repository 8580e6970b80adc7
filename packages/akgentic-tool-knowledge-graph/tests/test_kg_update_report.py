"""What an update reports: the actor's report names the ``seq`` of the delta it emitted,
and a delta counts every item it touches (the snapshot schedule's measure of change)."""

from __future__ import annotations

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.testing import ToolTestAgent, bind_card, team_tool_actor, tool_event_seqs
from akgentic.tool.knowledge_graph import (
    KG_ACTOR_NAME,
    Entity,
    KnowledgeGraphActor,
    KnowledgeGraphConfig,
    KnowledgeGraphStateEvent,
    KnowledgeGraphTool,
    ManageGraph,
    Relation,
)


def test_the_report_names_the_seq_of_the_emitted_delta(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    bind_card(tool_agent, KnowledgeGraphTool(vector_store=False))
    graph = team_tool_actor(actor_system, orchestrator, KnowledgeGraphActor, KnowledgeGraphConfig())
    first = graph.update_graph(
        ManageGraph.model_validate({"create_entities": [{"name": "Ann", "entity_type": "P"}]})
    )
    second = graph.update_graph(
        ManageGraph.model_validate({"create_entities": [{"name": "Bo", "entity_type": "P"}]})
    )
    assert (first.seq, second.seq) == (1, 2)
    assert tool_event_seqs(actor_system, orchestrator, KG_ACTOR_NAME) == [1, 2]
    # Nothing changed: no delta, no seq.
    unchanged = graph.update_graph(ManageGraph.model_validate({"delete_entities": ["Nobody"]}))
    assert unchanged.seq is None


def test_a_delta_counts_every_item_it_touches() -> None:
    def entities(count: int) -> list[Entity]:
        return [Entity(name=f"E{i}", entity_type="T") for i in range(count)]

    def relations(count: int) -> list[Relation]:
        return [
            Relation(from_entity="A", to_entity=f"E{i}", relation_type="r") for i in range(count)
        ]

    delta = KnowledgeGraphStateEvent(
        entities_added=entities(1),
        entities_modified=entities(2),
        entities_removed=["X", "Y", "Z"],
        relations_added=relations(4),
        relations_modified=relations(5),
        relations_removed=relations(6),
    )
    assert delta.change_count() == 21
