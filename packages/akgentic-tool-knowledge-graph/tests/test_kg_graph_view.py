"""``KnowledgeGraphActor.get_graph(query)``: which part of the graph a query selects, and
how a selected part is cut to the read limits (the note says what was left out)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from graph_builders import graph_actor

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.testing import ToolTestAgent, bind_card
from akgentic.tool.knowledge_graph import (
    GetGraphQuery,
    GraphView,
    KnowledgeGraphActor,
    KnowledgeGraphState,
    KnowledgeGraphTool,
    PathStep,
)


def _view(graph: KnowledgeGraphActor, **query: Any) -> tuple[list[str], list[str]]:
    view: GraphView = graph.get_graph(GetGraphQuery(**query))
    return [e.name for e in view.entities], [r.label() for r in view.relations]


@pytest.fixture
def graph(keyword_graph: Callable[..., KnowledgeGraphActor]) -> KnowledgeGraphActor:
    return keyword_graph(
        create_entities=[
            {"name": "Ann", "entity_type": "Person"},
            {"name": "Bob", "entity_type": "Person"},
            {"name": "Cy", "entity_type": "Person"},
            {"name": "Rex", "entity_type": "Dog"},
        ],
        create_relations=[
            {"from_entity": "Ann", "to_entity": "Bob", "relation_type": "knows"},
            {"from_entity": "Bob", "to_entity": "Cy", "relation_type": "knows"},
            {"from_entity": "Ann", "to_entity": "Rex", "relation_type": "owns"},
        ],
    )


def test_a_query_naming_no_start_starts_from_every_entity(graph: KnowledgeGraphActor) -> None:
    assert _view(graph) == (
        ["Ann", "Bob", "Cy", "Rex"],
        ["Ann -[knows]-> Bob", "Ann -[owns]-> Rex", "Bob -[knows]-> Cy"],
    )
    assert _view(graph, relation_types=["owns"])[1] == ["Ann -[owns]-> Rex"]


def test_a_bounded_view_keeps_its_relations_and_has_no_note(graph: KnowledgeGraphActor) -> None:
    view = graph.get_graph(GetGraphQuery(entity_names=["Ann"], depth=1))
    assert [e.name for e in view.entities] == ["Ann", "Bob", "Rex"]
    assert [r.label() for r in view.relations] == ["Ann -[knows]-> Bob", "Ann -[owns]-> Rex"]
    assert view.note is None


def test_a_path_follows_outgoing_relations_of_its_type_only(graph: KnowledgeGraphActor) -> None:
    knows = [PathStep(relation_type="knows", to_entity="*")]
    # Bob is reached from Ann; from Bob, the incoming Ann -[knows]-> Bob is not followed.
    assert _view(graph, entity_names=["Bob"], path=knows) == (["Bob", "Cy"], ["Bob -[knows]-> Cy"])
    assert _view(graph, entity_names=["Cy"], path=knows) == (["Cy"], [])
    assert _view(graph, entity_names=["Ann"], path=knows) == (
        ["Ann", "Bob"],
        ["Ann -[knows]-> Bob"],
    )


@pytest.mark.parametrize("target", ["", "*", "Rex", "Dog"])
def test_a_path_step_target_is_any_a_name_or_a_type(
    graph: KnowledgeGraphActor, target: str
) -> None:
    step = PathStep(relation_type="owns", to_entity=target)
    assert _view(graph, entity_names=["Ann"], path=[step]) == (
        ["Ann", "Rex"],
        ["Ann -[owns]-> Rex"],
    )


def test_a_restored_relation_to_a_missing_entity_is_skipped(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    # A predecessor's snapshot may hold a relation whose end entity is gone.
    tools = bind_card(tool_agent, KnowledgeGraphTool(vector_store=False))
    graph = graph_actor(actor_system, orchestrator)
    graph.init_state(
        KnowledgeGraphState.model_validate(
            {
                "knowledge_graph": {
                    "entities": [{"name": "Ann", "entity_type": "P"}],
                    "relations": [
                        {"from_entity": "Ann", "to_entity": "Ghost", "relation_type": "knows"}
                    ],
                }
            }
        )
    )
    assert _view(graph, entity_names=["Ann"], depth=2) == (["Ann"], [])
    found = tools["search_graph"](query="Ann", mode="keyword", top_k=1, include_neighbors=True)
    assert [h.entity.name for h in found.hits if h.entity] == ["Ann"]
    assert found.neighbors == []
