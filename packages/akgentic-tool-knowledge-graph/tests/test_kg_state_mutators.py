"""``KnowledgeGraphState``'s mutators and comparisons, as a client rebuilding the graph
from the event stream uses them, and the keyword index they keep up to date."""

from __future__ import annotations

from typing import Any

from akgentic.tool.core.testing import ToolTestAgent, bind_card
from akgentic.tool.knowledge_graph import (
    Entity,
    KnowledgeGraphState,
    KnowledgeGraphStateEvent,
    KnowledgeGraphTool,
    Relation,
)


def _state() -> KnowledgeGraphState:
    state = KnowledgeGraphState()
    for name in ("A", "B", "C"):
        state.put_entity(Entity(name=name, entity_type="T"))
    for source, target in (("A", "B"), ("C", "A"), ("B", "C")):
        state.put_relation(Relation(from_entity=source, to_entity=target, relation_type="r"))
    return state


def _labels(state: KnowledgeGraphState) -> list[str]:
    return sorted(r.label() for r in state.relations.values())


def test_removing_an_entity_returns_the_relations_it_took() -> None:
    state = _state()
    removed = state.remove_entity("A")
    assert sorted(r.label() for r in removed) == ["A -[r]-> B", "C -[r]-> A"]
    assert _labels(state) == ["B -[r]-> C"]
    assert state.remove_entity("A") == []


def test_removing_an_absent_relation_returns_none_and_changes_nothing() -> None:
    state = _state()
    assert state.remove_relation("no such key") is None
    assert _labels(state) == ["A -[r]-> B", "B -[r]-> C", "C -[r]-> A"]


def test_a_predecessor_delta_removes_relations_by_id() -> None:
    state = _state()
    target = next(r for r in state.relations.values() if r.label() == "C -[r]-> A")
    state.apply(KnowledgeGraphStateEvent(relations_removed=[target.id]))
    assert _labels(state) == ["A -[r]-> B", "B -[r]-> C"]


def test_graphs_with_the_same_entities_but_other_relations_differ() -> None:
    state = _state()
    assert state.same_graph(state.serializable_copy())
    fewer = dict(state.relations)
    fewer.pop(next(iter(fewer)))
    other = KnowledgeGraphState(entities=dict(state.entities), relations=fewer)
    assert not state.same_graph(other)
    assert not other.same_graph(state)


def test_a_relation_s_old_description_no_longer_finds_it(tool_agent: ToolTestAgent) -> None:
    tools: dict[str, Any] = bind_card(tool_agent, KnowledgeGraphTool(vector_store=False))
    link = {"from_entity": "Ann", "to_entity": "Bo", "relation_type": "knows"}
    tools["update_graph"](
        create_entities=[{"name": "Ann", "entity_type": "P"}, {"name": "Bo", "entity_type": "P"}],
        create_relations=[{**link, "description": "alpha"}],
    )
    assert len(tools["search_graph"](query="alpha", mode="keyword").hits) == 1
    assert "1 relation updated" in tools["update_graph"](
        create_relations=[{**link, "description": "beta"}]
    )
    assert tools["search_graph"](query="alpha", mode="keyword").hits == []
    assert len(tools["search_graph"](query="beta", mode="keyword").hits) == 1
