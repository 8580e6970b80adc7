"""search_graph: keyword, vector and hybrid scoring, graph context, and core's standard
vector-search tests (mirroring, words then meaning, every degraded store)."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from graph_builders import seed_pets

from akgentic.core.agent_config import BaseConfig
from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.testing import (
    LocalVectorStore,
    Tools,
    ToolTestAgent,
    VectorSearchTests,
    bind_card,
)
from akgentic.tool.core.vector_store import CollectionConfig
from akgentic.tool.knowledge_graph import (
    KG_COLLECTION,
    GraphSearchResult,
    KnowledgeGraphActor,
    KnowledgeGraphConfig,
    KnowledgeGraphTool,
)

SMALL = CollectionConfig(dimension=64)


def _names(result: GraphSearchResult) -> list[str]:
    return [h.entity.name if h.entity else h.relation.label() for h in result.hits]  # type: ignore[union-attr]


@pytest.fixture
def kg(tool_agent: ToolTestAgent, vector_store: LocalVectorStore) -> dict[str, Any]:
    tools = bind_card(tool_agent, KnowledgeGraphTool(collection=SMALL))
    seed_pets(tools)
    return tools


def test_keyword_mode_scores_one_and_is_case_insensitive(kg: dict[str, Any]) -> None:
    result = kg["search_graph"](query="DOG", mode="keyword")
    assert _names(result) == ["Rex", "Alice"]
    assert {h.score for h in result.hits} == {1.0}
    assert {h.matched_by for h in result.hits} == {"keyword"}
    assert result.note is None


def test_vector_mode_finds_meaning_without_shared_words(kg: dict[str, Any]) -> None:
    result = kg["search_graph"](query="canine", mode="vector")
    found = _names(result)
    # dog / hound fold onto the same concept in the test embedding; no keyword match exists.
    assert set(found[:3]) >= {"Rex", "Fido"}
    assert all(h.matched_by == "vector" for h in result.hits)
    assert all(0.3 <= h.score <= 1.0 for h in result.hits)
    assert [h.score for h in result.hits] == sorted((h.score for h in result.hits), reverse=True)


def test_hybrid_adds_half_a_point_to_items_found_both_ways(kg: dict[str, Any]) -> None:
    vector = kg["search_graph"](query="dog", mode="vector")
    cosine = {name: hit.score for name, hit in zip(_names(vector), vector.hits, strict=True)}
    result = kg["search_graph"](query="dog")
    by_name = dict(zip(_names(result), result.hits, strict=True))
    assert by_name["Rex"].matched_by == "both"
    assert by_name["Rex"].score == pytest.approx(cosine["Rex"] + 0.5)
    assert by_name["Fido"].matched_by == "vector"  # 'hound': semantic only
    assert by_name["Fido"].score == pytest.approx(cosine["Fido"])
    assert [h.score for h in result.hits] == sorted((h.score for h in result.hits), reverse=True)


def test_threshold_and_top_k_overrides(kg: dict[str, Any]) -> None:
    strict = kg["search_graph"](query="canine", mode="vector", score_threshold=0.99)
    assert strict.hits == []
    one = kg["search_graph"](query="dog", top_k=1)
    assert len(one.hits) == 1


def test_vector_mode_on_a_degraded_store_shows_keyword_matches_and_says_so(
    kg: dict[str, Any], vector_store: LocalVectorStore
) -> None:
    vector_store.set_degraded("provider down")
    vector_only = kg["search_graph"](query="dog", mode="vector")
    assert _names(vector_only) == ["Rex", "Alice"]
    assert vector_only.note is not None
    assert "keyword matches shown instead" in vector_only.note


def test_disabled_vector_store_is_never_used(
    tool_agent: ToolTestAgent, vector_store: LocalVectorStore
) -> None:
    tools = bind_card(tool_agent, KnowledgeGraphTool(vector_store=False, collection=SMALL))
    seed_pets(tools)
    assert vector_store.list_collections() == []
    result = tools["search_graph"](query="canine")
    assert result.hits == []
    assert result.note is not None
    assert "disabled" in result.note


def test_neighbors_edges_and_paths(tool_agent: ToolTestAgent) -> None:
    tools = bind_card(tool_agent, KnowledgeGraphTool(vector_store=False))
    seed_pets(tools)
    result = tools["search_graph"](
        query="Alice", mode="keyword", include_neighbors=True, include_edges=True
    )
    assert _names(result)[0] == "Alice"
    assert sorted(e.name for e in result.neighbors) == ["Bob", "Rex"]
    assert sorted(r.label() for r in result.edges) == [
        "Alice -[owns]-> Rex",
        "Bob -[knows]-> Alice",
    ]
    paths = tools["search_graph"](query="a", mode="keyword", find_paths=True, top_k=20).paths
    rex_to_fido = [p for p in paths if {p.entities[0], p.entities[-1]} == {"Rex", "Fido"}]
    assert len(rex_to_fido) == 1
    path = rex_to_fido[0]
    assert len(path.entities) == 4  # Rex - Alice - Bob - Fido, whatever the direction
    assert len(path.relations) == 3
    assert all(not {p.entities[0], p.entities[-1]} & {"Island"} for p in paths)
    assert len(paths) <= 10


def test_multi_word_keyword_query_needs_every_word(tool_agent: ToolTestAgent) -> None:
    tools = bind_card(tool_agent, KnowledgeGraphTool(vector_store=False))
    seed_pets(tools)
    assert _names(tools["search_graph"](query="owns dog", mode="keyword")) == ["Alice"]
    assert _names(tools["search_graph"](query="Bob knows", mode="keyword")) == [
        "Bob -[knows]-> Alice"
    ]


class TestGraphVectorSearch(VectorSearchTests):
    collection = KG_COLLECTION
    keyword_hits: ClassVar[list[str]] = ["Rex", "Alice"]
    meaning_only = "Fido"
    seeded_refs = 9  # 6 entities and 3 relations
    actor_class = KnowledgeGraphActor

    def make_card(self, **fields: Any) -> ToolCard:
        return KnowledgeGraphTool(**fields)

    def seed(self, tools: Tools) -> None:
        seed_pets(tools)

    def search(self, tools: Tools, query: str, **options: Any) -> tuple[list[str], str | None]:
        result = tools["search_graph"](query=query, **options)
        names = [h.entity.name if h.entity else h.relation.label() for h in result.hits]
        return names, result.note

    def delete_one(self, tools: Tools) -> str:
        tools["update_graph"](delete_entities=["Bob"])  # and his two relations
        return "Bob"

    def late_store_config(self) -> BaseConfig:
        return KnowledgeGraphConfig(collection=SMALL, store_retry_seconds=0)
