"""A batch with rejected items still applies the others, in every list; what it reports.

The actor answers with a report (summary, rejections, ``seq``); the card turns rejections
into a ``RetriableError`` naming them. A change of relations alone is a delta like any other.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.testing import ToolTestAgent, bind_card, tool_event_seqs
from akgentic.tool.knowledge_graph import (
    KG_ACTOR_NAME,
    KnowledgeGraphActor,
    KnowledgeGraphTool,
    ManageGraph,
)


@pytest.fixture
def graph(keyword_graph: Callable[..., KnowledgeGraphActor]) -> KnowledgeGraphActor:
    return keyword_graph(
        create_entities=[
            {"name": "Ann", "entity_type": "P", "observations": ["a"]},
            {"name": "Bo", "entity_type": "P"},
            {"name": "Gone", "entity_type": "P"},
        ],
        create_relations=[
            {"from_entity": "Ann", "to_entity": "Bo", "relation_type": "knows"},
            {"from_entity": "Bo", "to_entity": "Ann", "relation_type": "knows"},
        ],
    )


def _relations(graph: KnowledgeGraphActor) -> list[str]:
    return sorted(r.label() for r in graph.graph().relations.values())


def test_each_list_goes_on_after_a_rejected_item(graph: KnowledgeGraphActor) -> None:
    report = graph.update_graph(
        ManageGraph.model_validate(
            {
                "create_entities": [
                    {"name": "Ann", "entity_type": "P"},  # exists
                    {"name": "Cy", "entity_type": "P"},
                ],
                "update_entities": [
                    {"name": "Nobody", "description": "x"},  # unknown
                    {"name": "Ann", "remove_observations": ["never said"]},  # not held
                    {"name": "Bo", "add_observations": ["b1", "b2"]},  # past the bound of 1
                    {"name": "Bo", "description": "updated"},
                ],
                "create_relations": [
                    {"from_entity": "Ann", "to_entity": "Nobody", "relation_type": "r"},
                    {"from_entity": "Cy", "to_entity": "Ann", "relation_type": "r"},
                ],
                "delete_relations": [
                    {"from_entity": "Ann", "to_entity": "Bo", "relation_type": "likes"},
                    {"from_entity": "Ann", "to_entity": "Bo", "relation_type": "knows"},
                ],
                "delete_entities": ["Nobody", "Gone"],
            }
        ),
        1,
    )
    assert [error.split(":")[0].split(" ")[0] for error in report.errors] == [
        "create_entities[0]",
        "update_entities[0]",
        "update_entities[1]",
        "update_entities[2]",
        "create_relations[0]",
        "delete_relations[0]",
        "delete_entities[0]",
    ]
    state = graph.graph()
    assert sorted(state.entities) == ["Ann", "Bo", "Cy"]
    assert state.entities["Bo"].description == "updated"
    assert _relations(graph) == ["Bo -[knows]-> Ann", "Cy -[r]-> Ann"]
    assert report.summary == (
        "1 entity created, 1 entity updated, 1 entity deleted, 1 relation added, 1 relation removed"
    )
    # The rejections name the argument to use instead.
    assert "update_entities" in report.errors[0]
    assert "remove_observations" in report.errors[3]


def test_deleting_relations_alone_is_a_delta(
    actor_system: ActorSystem, orchestrator: ActorAddress, graph: KnowledgeGraphActor
) -> None:
    knows = {"from_entity": "Ann", "to_entity": "Bo", "relation_type": "knows"}
    report = graph.update_graph(ManageGraph.model_validate({"delete_relations": [knows]}))
    assert report.errors == []
    assert report.seq == 2
    assert tool_event_seqs(actor_system, orchestrator, KG_ACTOR_NAME) == [1, 2]
    assert _relations(graph) == ["Bo -[knows]-> Ann"]


def test_a_batch_changing_nothing_says_so(
    tool_agent: ToolTestAgent, graph: KnowledgeGraphActor
) -> None:
    tools = bind_card(tool_agent, KnowledgeGraphTool(vector_store=False))
    result = tools["update_graph"](update_entities=[{"name": "Bo", "description": ""}])
    assert result == "Knowledge graph updated: no change."
