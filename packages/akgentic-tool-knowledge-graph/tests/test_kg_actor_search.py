"""The graph actor's own search, as code written for the predecessor calls it.

``search(query)`` without vector hits makes the actor ask the vector store itself; it must
answer as the card's ``search_graph`` does for the same query and store. ``search_result``
gives the same answer in the predecessor's shape.
"""

from __future__ import annotations

from typing import Any

import pytest
from graph_builders import graph_actor, seed_pets

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.testing import (
    LocalVectorStore,
    ToolTestAgent,
    bind_card,
    spawn_tool_agent,
)
from akgentic.tool.core.vector_store import CollectionConfig, VectorDocument
from akgentic.tool.knowledge_graph import (
    KG_COLLECTION,
    Entity,
    KnowledgeGraphTool,
    Relation,
    SearchQuery,
)

SMALL = CollectionConfig(dimension=64)


def _names(hits: list[Any]) -> list[str]:
    return [h.entity.name if h.entity else h.relation.label() for h in hits]


@pytest.fixture
def tools(tool_agent: ToolTestAgent, vector_store: LocalVectorStore) -> dict[str, Any]:
    tools = bind_card(tool_agent, KnowledgeGraphTool(collection=SMALL))
    seed_pets(tools)
    return tools


def test_keyword_mode_never_asks_the_store(
    actor_system: ActorSystem, orchestrator: ActorAddress, tools: dict[str, Any]
) -> None:
    graph = graph_actor(actor_system, orchestrator)
    assert _names(graph.search(SearchQuery(query="canine", mode="vector")).hits)
    assert graph.search(SearchQuery(query="canine", mode="keyword")).hits == []


def test_the_query_threshold_overrides_the_configured_one(
    actor_system: ActorSystem, orchestrator: ActorAddress, tools: dict[str, Any]
) -> None:
    graph = graph_actor(actor_system, orchestrator)
    strict = SearchQuery(query="canine", mode="vector", score_threshold=0.99)
    assert graph.search(strict).hits == []
    assert tools["search_graph"](query=strict).hits == []


def test_stale_vectors_cost_the_same_hits_as_through_the_card(
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    tools: dict[str, Any],
    vector_store: LocalVectorStore,
) -> None:
    # Vectors of entities deleted behind the store's back outrank the live ones: both
    # ways of searching ask the store for the same number of candidates.
    vector_store.upsert(
        KG_COLLECTION,
        [VectorDocument(ref=f"entity:Ghost{i}", text="canine") for i in range(2)],
    )
    query = SearchQuery(query="canine", mode="vector", top_k=1)
    by_card = _names(tools["search_graph"](query=query).hits)
    by_actor = _names(graph_actor(actor_system, orchestrator).search(query).hits)
    assert by_card == []  # both candidates asked for were stale
    assert by_actor == by_card
    wider = SearchQuery(query="canine", mode="vector", top_k=2)
    live = _names(graph_actor(actor_system, orchestrator).search(wider).hits)
    assert len(live) == 2
    assert set(live) <= {"Rex", "Fido", "Alice"}


def test_without_a_store_the_actor_says_what_the_card_says(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    tools = bind_card(tool_agent, KnowledgeGraphTool(vector_store=False))
    seed_pets(tools)
    by_card = tools["search_graph"](query="canine").note
    assert by_card
    assert (
        graph_actor(actor_system, orchestrator).search(SearchQuery(query="canine")).note == by_card
    )


def test_the_configured_hop_limit_bounds_the_actor_s_own_paths(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    # The card creating the actor sets its configuration; Rex and Fido are three hops apart.
    tools = bind_card(tool_agent, KnowledgeGraphTool(vector_store=False, path_max_hops=2))
    seed_pets(tools)
    result = graph_actor(actor_system, orchestrator).search(
        SearchQuery(query="Animal", mode="keyword", find_paths=True)
    )
    assert result.paths == []
    assert "no path of at most 2 relations" in (result.note or "")


def test_the_predecessor_shape_keeps_relation_hits_and_the_context(
    actor_system: ActorSystem, orchestrator: ActorAddress, tools: dict[str, Any]
) -> None:
    graph = graph_actor(actor_system, orchestrator)
    state = graph.graph()
    relations = graph.search_result(SearchQuery(query="->", mode="keyword"))
    assert [(h.ref_type, h.relation.label()) for h in relations.hits if h.relation] == [
        ("relation", "Alice -[owns]-> Rex"),
        ("relation", "Bob -[knows]-> Alice"),
        ("relation", "Bob -[walks]-> Fido"),
    ]
    assert [h.ref_id for h in relations.hits] == [str(r.id) for r in state.relations.values()]

    pets = graph.search_result(
        SearchQuery(
            query="Animal",
            mode="keyword",
            include_neighbors=True,
            include_edges=True,
            find_paths=True,
        )
    )
    assert sorted(n.name for n in pets.neighbors) == ["Alice", "Bob"]
    assert sorted(r.label() for r in pets.connected_relations) == [
        "Alice -[owns]-> Rex",
        "Bob -[walks]-> Fido",
    ]
    (path,) = pets.paths
    # entity, relation, entity, ...: each relation between the two entities around it
    assert [
        step.name if isinstance(step, Entity) else step.label()
        for step in path
        if isinstance(step, Entity | Relation)
    ] == [
        "Rex",
        "Alice -[owns]-> Rex",
        "Alice",
        "Bob -[knows]-> Alice",
        "Bob",
        "Bob -[walks]-> Fido",
        "Fido",
    ]


def test_a_degraded_store_falls_back_to_keywords_both_ways(
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    tools: dict[str, Any],
    vector_store: LocalVectorStore,
) -> None:
    vector_store.set_degraded("provider down")
    graph = graph_actor(actor_system, orchestrator)
    hybrid = tools["search_graph"](query="dog").note
    assert hybrid
    assert "provider down" in hybrid
    fallback = f"{hybrid}; keyword matches shown instead"
    vector = SearchQuery(query="dog", mode="vector")
    by_card = tools["search_graph"](query=vector)
    by_actor = graph.search(vector)
    for result in (by_card, by_actor):
        assert _names(result.hits) == ["Rex", "Alice"]  # their keyword matches
        assert result.note == fallback
    assert graph.search(SearchQuery(query="dog")).note == hybrid


def test_the_actor_s_own_vector_search_finds_relations(
    actor_system: ActorSystem, orchestrator: ActorAddress, tools: dict[str, Any]
) -> None:
    query = SearchQuery(query="walks", mode="vector")
    by_actor = _names(graph_actor(actor_system, orchestrator).search(query).hits)
    assert by_actor == ["Bob -[walks]-> Fido"]
    assert _names(tools["search_graph"](query=query).hits) == by_actor


def test_each_card_s_default_top_k_applies_whichever_card_created_the_actor(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    wide = bind_card(tool_agent, KnowledgeGraphTool(vector_store=False, search_top_k=5))
    seed_pets(wide)
    narrow = bind_card(
        spawn_tool_agent(actor_system, orchestrator, "@Narrow"),
        KnowledgeGraphTool(vector_store=False, search_top_k=2),
    )
    assert len(wide["search_graph"](query="a", mode="keyword").hits) == 5
    assert len(narrow["search_graph"](query="a", mode="keyword").hits) == 2
