"""Card settings and pure graph logic (public names and conformance: test_standard.py)."""

from __future__ import annotations

import pytest

import akgentic.tool.knowledge_graph as kg
from akgentic.tool.core.testing import ToolTestAgent, bind_card
from akgentic.tool.knowledge_graph import (
    Entity,
    KnowledgeGraphState,
    KnowledgeGraphStateEvent,
    KnowledgeGraphTool,
    ManageGraph,
    Relation,
    relation_key,
)
from akgentic.tool.knowledge_graph._search import KeywordIndex, shortest_paths
from akgentic.tool.knowledge_graph._update import apply_update


def test_bad_vector_store_name_is_refused() -> None:
    with pytest.raises(ValueError, match="starts with '#'"):
        KnowledgeGraphTool(vector_store="VectorStore")


def test_dependency_on_the_vector_store_card_follows_the_setting() -> None:
    assert "VectorStoreTool" not in KnowledgeGraphTool(vector_store=False).depends_on
    again = KnowledgeGraphTool.model_validate_json(KnowledgeGraphTool().model_dump_json())
    assert again.depends_on == KnowledgeGraphTool().depends_on


def test_tools_carry_instructions_in_their_description(tool_agent: ToolTestAgent) -> None:
    card = KnowledgeGraphTool(
        vector_store=False, update_graph=kg.UpdateGraph(instructions="Use PascalCase names.")
    )
    tools = bind_card(tool_agent, card)
    assert (tools["update_graph"].__doc__ or "").rstrip().endswith("Use PascalCase names.")


def _state() -> KnowledgeGraphState:
    state = KnowledgeGraphState()
    apply_update(
        state,
        ManageGraph.model_validate(
            {
                "create_entities": [
                    {"name": n, "entity_type": "T", "description": f"note on {n}"} for n in "ABCDE"
                ],
                "create_relations": [
                    {"from_entity": a, "to_entity": b, "relation_type": "link"}
                    for a, b in ["AB", "BC", "CD"]
                ],
            }
        ),
    )
    return state


def test_net_delta_of_a_batch() -> None:
    state = _state()
    outcome = apply_update(
        state,
        ManageGraph.model_validate(
            {
                "create_entities": [{"name": "F", "entity_type": "T"}],
                "update_entities": [
                    {"name": "A", "description": "new"},
                    {"name": "F", "is_root": True},
                ],
                "delete_entities": ["F", "C"],
            }
        ),
    )
    assert outcome.errors == []
    delta = outcome.delta
    assert delta.entities_added == []  # F came and went
    assert [e.name for e in delta.entities_modified] == ["A"]
    assert delta.entities_removed == ["C"]
    assert sorted(r.label() for r in delta.relations_removed) == ["B -[link]-> C", "C -[link]-> D"]
    assert outcome.summary == "1 entity updated, 1 entity deleted, 2 relations removed"


def test_removing_an_unknown_observation_is_rejected() -> None:
    state = _state()
    outcome = apply_update(
        state,
        ManageGraph.model_validate(
            {"update_entities": [{"name": "A", "remove_observations": ["never said"]}]}
        ),
    )
    assert outcome.errors == ["update_entities[0] 'A': no observation 'never said' to remove"]
    assert outcome.delta.is_empty()


def test_keyword_index_follows_changes() -> None:
    state = _state()
    index = KeywordIndex()
    assert index.search(state, "NOTE d") == [("entity", "D")]
    state.put_entity(Entity(name="G", entity_type="T", description="note on d too"))
    assert index.search(state, "note d") == [("entity", "D"), ("entity", "G")]
    assert index.search(state, "link") == [
        ("relation", relation_key("A", "link", "B")),
        ("relation", relation_key("B", "link", "C")),
        ("relation", relation_key("C", "link", "D")),
    ]
    assert index.search(state, "   ") == []
    assert index.search(state, "zzz") == []


def test_shortest_paths_ignore_direction_and_skip_unreachable() -> None:
    state = _state()
    paths = shortest_paths(state, ["D", "A", "E"])
    assert len(paths) == 1
    assert paths[0].entities == ["D", "C", "B", "A"]
    assert [r.label() for r in paths[0].relations] == [
        "C -[link]-> D",
        "B -[link]-> C",
        "A -[link]-> B",
    ]


def test_relation_keys_are_unambiguous() -> None:
    assert relation_key("a|b", "c", "d") != relation_key("a", "b|c", "d")
    relation = Relation(from_entity="a", to_entity="b", relation_type="r")
    assert relation.key == relation_key("a", "r", "b")


def test_snapshot_copy_is_independent_of_the_live_state() -> None:
    state = _state()
    copy = state.serializable_copy()
    state.remove_entity("A")
    assert "A" in copy.entities
    assert copy.same_graph(copy.model_validate_json(copy.model_dump_json()))
    assert KnowledgeGraphStateEvent().is_empty()
