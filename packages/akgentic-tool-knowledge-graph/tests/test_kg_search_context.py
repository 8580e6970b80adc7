"""search_graph's context around the entity hits, and how the answer is cut to its budget.

Neighbours and edges stop at the context limit and say so; paths report how many pairs of
hits have none; when the size limit cuts edges, the neighbours after them go too, and the
note counts what each list lost. Every note adds to what the answer already said.
"""

from __future__ import annotations

from typing import Any

import pytest
from graph_builders import seed_hub, seed_pets

from akgentic.tool.core.testing import ToolTestAgent, bind_card
from akgentic.tool.knowledge_graph import Entity, GraphSearchResult, KnowledgeGraphTool

CONTEXT_LIMIT = 100  # neighbours / edges of one answer, as the tool documents
ROOMY = 1_000_000  # a size limit no answer here reaches


def _hub_search(tools: dict[str, Any], **context: bool) -> GraphSearchResult:
    result: GraphSearchResult = tools["search_graph"](
        query="Centre", mode="keyword", top_k=1, **context
    )
    assert [h.entity.name for h in result.hits if h.entity] == ["Hub"]
    return result


@pytest.mark.parametrize(
    ("option", "field"), [("include_neighbors", "neighbors"), ("include_edges", "edges")]
)
def test_context_stops_at_the_context_limit_and_says_so(
    tool_agent: ToolTestAgent, option: str, field: str
) -> None:
    tools = bind_card(tool_agent, KnowledgeGraphTool(vector_store=False, result_max_chars=ROOMY))
    seed_hub(tools, range(CONTEXT_LIMIT))
    at_limit = _hub_search(tools, **{option: True})
    assert len(getattr(at_limit, field)) == CONTEXT_LIMIT
    assert at_limit.note is None

    seed_hub(tools, range(CONTEXT_LIMIT, CONTEXT_LIMIT + 1))
    over = _hub_search(tools, **{option: True})
    shown = getattr(over, field)
    assert len(shown) == CONTEXT_LIMIT
    spokes = [item.name if isinstance(item, Entity) else item.to_entity for item in shown]
    assert spokes == [f"S{i:03}" for i in range(CONTEXT_LIMIT)]  # the first ones
    assert over.note == f"neighbours/edges cut to the first {CONTEXT_LIMIT}"


@pytest.fixture
def pets(tool_agent: ToolTestAgent) -> dict[str, Any]:
    tools = bind_card(tool_agent, KnowledgeGraphTool(vector_store=False))
    seed_pets(tools)
    return tools


def test_hits_are_not_their_own_neighbours(pets: dict[str, Any]) -> None:
    result = pets["search_graph"](query="Person", mode="keyword", include_neighbors=True)
    assert [h.entity.name for h in result.hits if h.entity] == ["Alice", "Bob"]
    assert sorted(n.name for n in result.neighbors) == ["Fido", "Rex"]


def test_the_path_note_counts_the_pairs_left_without_a_path(pets: dict[str, Any]) -> None:
    # Five entity hits, ten pairs: the four with Tesla (linked to nothing) have no path.
    result = pets["search_graph"](query="a", mode="keyword", find_paths=True)
    assert len(result.paths) == 6
    assert all("Tesla" not in p.entities for p in result.paths)
    assert (result.note or "").startswith("4 of 10 pairs of hits have no path of at most 10")


def test_context_notes_follow_the_note_already_given(pets: dict[str, Any]) -> None:
    # Without a vector store, a hybrid search says so; the path note comes after it.
    plain = pets["search_graph"](query="a").note
    assert plain
    with_paths = pets["search_graph"](query="a", find_paths=True).note
    assert with_paths.startswith(f"{plain}; 4 of 10 pairs of hits have no path")


def test_a_path_of_exactly_the_hop_limit_is_found_one_more_is_not(
    tool_agent: ToolTestAgent,
) -> None:
    tools = bind_card(tool_agent, KnowledgeGraphTool(vector_store=False, path_max_hops=3))
    tools["update_graph"](
        create_entities=[{"name": f"L{i}", "entity_type": "T"} for i in range(5)],
        create_relations=[
            {"from_entity": f"L{i}", "to_entity": f"L{i + 1}", "relation_type": "next"}
            for i in range(4)
        ],
    )
    # The five entities are hits: ten pairs, one of them (L0, L4) four relations apart.
    three = tools["search_graph"](query="L", mode="keyword", find_paths=True, top_k=20)
    ends = {(p.entities[0], p.entities[-1]): len(p.relations) for p in three.paths}
    assert ends[("L0", "L3")] == 3
    assert ("L0", "L4") not in ends
    assert "1 of 10 pairs of hits have no path of at most 3 relations" in (three.note or "")


def test_a_relation_hit_hides_no_observations(pets: dict[str, Any]) -> None:
    result = pets["search_graph"](query="->", mode="keyword")
    assert [h.kind for h in result.hits] == ["relation"] * 3
    assert result.note is None


def test_observations_shown_are_those_naming_the_query_then_the_first(
    tool_agent: ToolTestAgent,
) -> None:
    tools = bind_card(tool_agent, KnowledgeGraphTool(vector_store=False, observations_per_hit=2))
    tools["update_graph"](
        create_entities=[
            {"name": "Bo", "entity_type": "P", "description": "tea", "observations": ["a", "b"]},
            {"name": "Ann", "entity_type": "P", "observations": ["a", "b", "c", "likes tea"]},
            {"name": "Cy", "entity_type": "P", "observations": ["c", "d"]},
        ],
        create_relations=[
            {"from_entity": "Ann", "to_entity": "Bo", "relation_type": "knows"},
            {"from_entity": "Cy", "to_entity": "Bo", "relation_type": "knows"},
        ],
    )
    result = tools["search_graph"](query="tea", mode="keyword", top_k=1, include_neighbors=True)
    # Exactly as many as shown: nothing marked. More: the one naming "tea" comes first.
    assert [h.entity.observations for h in result.hits if h.entity] == [("a", "b")]
    assert {n.name: n.observations for n in result.neighbors} == {
        "Ann": ("a", "likes tea", "+2 more observations"),
        "Cy": ("c", "d"),
    }
    assert (result.note or "").startswith("2 observations not shown")


def test_edges_cut_by_size_take_the_neighbours_after_them(tool_agent: ToolTestAgent) -> None:
    tools = bind_card(tool_agent, KnowledgeGraphTool(vector_store=False, result_max_chars=2000))
    seed_hub(tools, range(10), description="x" * 300)
    result = _hub_search(tools, include_edges=True, include_neighbors=True)
    kept = len(result.edges)
    assert 1 <= kept < 10
    assert [r.to_entity for r in result.edges] == [f"S{i:03}" for i in range(kept)]
    assert result.neighbors == []
    assert len(result.model_dump_json()) <= 2000
    assert f"left out {10 - kept} of 10 edges, 10 of 10 neighbours" in (result.note or "")


def test_cut_notes_follow_the_note_already_given(tool_agent: ToolTestAgent) -> None:
    # Without a vector store, a hybrid search says so; the observations note comes after.
    tools = bind_card(tool_agent, KnowledgeGraphTool(vector_store=False, observations_per_hit=1))
    tools["update_graph"](
        create_entities=[{"name": "Ann", "entity_type": "P", "observations": ["a", "b"]}]
    )
    plain = tools["search_graph"](query="Ann", mode="keyword").note
    assert plain.startswith("1 observations not shown")
    disabled = tools["search_graph"](query="nobody").note
    assert disabled
    assert tools["search_graph"](query="Ann").note == f"{disabled}; {plain}"


def test_a_size_cut_names_every_way_to_narrow_the_search(tool_agent: ToolTestAgent) -> None:
    tools = bind_card(tool_agent, KnowledgeGraphTool(vector_store=False, result_max_chars=800))
    tools["update_graph"](
        create_entities=[
            {"name": f"E{i}", "entity_type": "T", "description": "y" * 200} for i in range(5)
        ]
    )
    note = tools["search_graph"](query="yyy", mode="keyword").note or ""
    assert "left out" in note
    assert "top_k" in note
    assert "include_neighbors / include_edges / find_paths" in note
    assert note.endswith("a query naming the entity you need")


def test_a_plain_search_adds_no_context(pets: dict[str, Any]) -> None:
    result = pets["search_graph"](query="Person", mode="keyword")
    assert [h.entity.name for h in result.hits if h.entity] == ["Alice", "Bob"]
    assert (result.neighbors, result.edges, result.paths) == ([], [], [])
