"""Every read of the graph is bounded (security review, finding 3).

Reproduces each flood on a real team: a path along a long chain, one entity holding
hundreds of long observations, and a hundred large hits. Each answer now stays within its
size limit, keeps its best items, and says in its note what was cut and how to narrow.
"""

from __future__ import annotations

from typing import Any

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.testing import (
    ToolTestAgent,
    bind_card,
    spawn_tool_agent,
    team_tool_actor,
)
from akgentic.tool.knowledge_graph import (
    DEFAULT_OBSERVATIONS_PER_HIT,
    DEFAULT_PATH_MAX_HOPS,
    DEFAULT_RESULT_MAX_CHARS,
    GetGraphQuery,
    GraphSearchResult,
    KnowledgeGraphActor,
    KnowledgeGraphConfig,
    KnowledgeGraphTool,
)

LONG = "x" * 380  # an observation of realistic length


def _chain(tools: dict[str, Any], length: int) -> None:
    """Entities C0 ... C<length-1>, each linked to the next; both ends say 'chainend'."""
    entities = [
        {
            "name": f"C{i}",
            "entity_type": "Link",
            "description": "chainend" if i in (0, length - 1) else "link",
        }
        for i in range(length)
    ]
    relations = [
        {"from_entity": f"C{i}", "to_entity": f"C{i + 1}", "relation_type": "next"}
        for i in range(length - 1)
    ]
    tools["update_graph"](create_entities=entities, create_relations=relations)


def _size(result: GraphSearchResult) -> int:
    return len(result.model_dump_json())


def test_defaults_are_the_documented_values() -> None:
    assert (DEFAULT_PATH_MAX_HOPS, DEFAULT_RESULT_MAX_CHARS, DEFAULT_OBSERVATIONS_PER_HIT) == (
        10,
        40_000,
        20,
    )
    card = KnowledgeGraphTool()
    assert (card.path_max_hops, card.result_max_chars, card.observations_per_hit) == (
        10,
        40_000,
        20,
    )


def test_a_path_along_a_long_chain_is_not_returned(tool_agent: ToolTestAgent) -> None:
    tools = bind_card(tool_agent, KnowledgeGraphTool(vector_store=False))
    _chain(tools, 400)
    result = tools["search_graph"](query="chainend", mode="keyword", find_paths=True)
    assert sorted(h.entity.name for h in result.hits if h.entity) == ["C0", "C399"]
    assert result.paths == []
    assert "1 of 1 pairs of hits have no path of at most 10 relations" in (result.note or "")
    assert _size(result) < 2_000

    # A pair within the hop limit still gets its path.
    near = tools["search_graph"](query="C0 C3", mode="keyword", find_paths=True)
    assert near.note is None or "no path" not in near.note


def test_hop_limit_is_configurable_and_the_size_limit_still_holds(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    tools = bind_card(
        tool_agent, KnowledgeGraphTool(vector_store=False, path_max_hops=12, result_max_chars=3000)
    )
    _chain(tools, 12)
    result = tools["search_graph"](query="chainend", mode="keyword", find_paths=True)
    (path,) = result.paths
    assert len(path.relations) == 11
    assert _size(result) <= 3000

    # Another agent's card with a smaller size limit: its answer drops the path (its own
    # bounds apply, whichever card created the team's graph actor).
    small = bind_card(
        spawn_tool_agent(actor_system, orchestrator, "@Small"),
        KnowledgeGraphTool(vector_store=False, path_max_hops=12, result_max_chars=1500),
    )
    cut = small["search_graph"](query="chainend", mode="keyword", find_paths=True)
    assert len(cut.hits) == 2
    assert cut.paths == []
    assert "left out 1 of 1 paths" in (cut.note or "")
    assert "narrow the search" in (cut.note or "")
    assert _size(cut) <= 1500


def test_an_entity_with_many_observations_shows_a_few_and_counts_the_rest(
    tool_agent: ToolTestAgent,
) -> None:
    tools = bind_card(tool_agent, KnowledgeGraphTool(vector_store=False))
    observations = [f"fact {i} {LONG}" for i in range(999)] + ["the secret fruit is kiwi"]
    tools["update_graph"](
        create_entities=[{"name": "Hoarder", "entity_type": "P", "observations": observations}]
    )
    result = tools["search_graph"](query="kiwi", mode="keyword")
    (hit,) = result.hits
    assert hit.entity is not None
    shown = hit.entity.observations
    assert len(shown) == DEFAULT_OBSERVATIONS_PER_HIT + 1
    assert "the secret fruit is kiwi" in shown  # the one the query names comes first
    assert shown[-1] == "+980 more observations"
    assert "980 observations not shown" in (result.note or "")
    assert _size(result) < DEFAULT_RESULT_MAX_CHARS  # was ~390,000 characters


def test_observations_per_hit_is_configurable(tool_agent: ToolTestAgent) -> None:
    tools = bind_card(tool_agent, KnowledgeGraphTool(vector_store=False, observations_per_hit=2))
    tools["update_graph"](
        create_entities=[
            {"name": "Ann", "entity_type": "P", "observations": ["a", "b", "c", "d"]},
            {"name": "Bo", "entity_type": "P", "observations": ["e"]},
        ],
        create_relations=[{"from_entity": "Ann", "to_entity": "Bo", "relation_type": "knows"}],
    )
    result = tools["search_graph"](query="Bo", mode="keyword", include_neighbors=True)
    assert [h.entity.observations for h in result.hits if h.entity] == [("e",)]
    assert [n.observations for n in result.neighbors] == [("a", "b", "+2 more observations")]


def test_a_hundred_large_hits_are_cut_to_the_size_limit(tool_agent: ToolTestAgent) -> None:
    tools = bind_card(tool_agent, KnowledgeGraphTool(vector_store=False))
    tools["update_graph"](
        create_entities=[
            {
                "name": f"Big{i:03}",
                "entity_type": "T",
                "description": "bulky",
                "observations": [f"o{j} {LONG}" for j in range(20)],
            }
            for i in range(100)
        ]
    )
    result = tools["search_graph"](query="bulky", mode="keyword", top_k=100, include_edges=True)
    assert _size(result) <= DEFAULT_RESULT_MAX_CHARS  # was ~800,000 characters
    kept = [h.entity.name for h in result.hits if h.entity]
    assert kept == [f"Big{i:03}" for i in range(len(kept))]  # the best ones, in order
    assert 1 <= len(kept) < 100
    note = result.note or ""
    assert f"answer cut to {DEFAULT_RESULT_MAX_CHARS} characters" in note
    assert f"left out {100 - len(kept)} of 100 hits" in note
    assert "a smaller top_k" in note


def test_get_graph_with_a_query_is_bounded_the_whole_graph_is_not(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    tools = bind_card(
        tool_agent,
        KnowledgeGraphTool(vector_store=False, result_max_chars=2000, observations_per_hit=1),
    )
    _chain(tools, 60)
    tools["update_graph"](update_entities=[{"name": "C0", "add_observations": ["p", "q"]}])
    graph = team_tool_actor(actor_system, orchestrator, KnowledgeGraphActor, KnowledgeGraphConfig())
    view = graph.get_graph(GetGraphQuery(entity_names=["C0"], depth=100))
    assert len(view.model_dump_json()) <= 2000
    assert [e.name for e in view.entities][:2] == ["C0", "C1"]
    assert view.entities[0].observations == ("p", "+1 more observations")
    assert view.relations == []  # the entities took the whole budget
    note = view.note or ""
    assert note.startswith("1 observations not shown")
    # The size cut follows, each list counted (the relations had no room left).
    dropped = f"left out {60 - len(view.entities)} of 60 entities, 59 of 59 relations; "
    assert f"; answer cut to 2000 characters: {dropped}" in note
    assert "a smaller depth" in note

    whole = graph.get_graph()
    assert len(whole.entities) == 60
    assert len(whole.relations) == 59
    assert whole.note is None
