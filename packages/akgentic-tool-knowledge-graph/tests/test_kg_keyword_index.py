"""The graph's keyword search goes through core's word index for entities and relations.

(akgentic-tool-core's ``test_core_word_index.py`` proves the index against a full scan
after any changes; this file checks the graph's wiring only: what text each kind of item
is indexed with, that deltas reach both indexes, and that a search skips unrelated items.)
"""

from __future__ import annotations

from typing import Any

import akgentic.tool.knowledge_graph.state as state_module
from akgentic.tool.knowledge_graph import Entity, KnowledgeGraphState, Relation
from akgentic.tool.knowledge_graph._texts import entity_text
from akgentic.tool.knowledge_graph.event import KnowledgeGraphStateEvent
from akgentic.tool.knowledge_graph.models import relation_key


def test_entities_and_relations_follow_deltas_after_the_first_search() -> None:
    state = KnowledgeGraphState()
    old = Entity(name="Old", entity_type="T", description="gone soon")
    state.apply(KnowledgeGraphStateEvent(entities_added=[old]))
    assert state.keyword_search("gone") == [("entity", "Old")]
    state.put_entity(Entity(name="New", entity_type="T", observations=("seen",)))
    state.put_relation(Relation(from_entity="Old", to_entity="New", relation_type="precedes"))
    precedes = ("relation", relation_key("Old", "precedes", "New"))
    assert state.keyword_search("preced") == [precedes]
    assert state.keyword_search("SEEN") == [("entity", "New")]
    renewed = Entity(name="Old", entity_type="T", description="renewed")
    state.apply(KnowledgeGraphStateEvent(entities_modified=[renewed]))
    assert state.keyword_search("gone") == []
    state.apply(KnowledgeGraphStateEvent(entities_removed=["Old"]))
    assert state.keyword_search("renew") == []
    assert state.keyword_search("precedes") == []


def test_a_search_reads_no_entity_outside_the_rarest_word(monkeypatch: Any) -> None:
    state = KnowledgeGraphState()
    for n in range(2_000):
        state.put_entity(Entity(name=f"E{n:05d}", entity_type="Thing", description=f"c{n % 9}"))
    assert state.keyword_search("e00042") == [("entity", "E00042")]  # builds the index
    read: list[str] = []

    def counting(entity: Entity) -> str:
        read.append(entity.name)
        return entity_text(entity)

    monkeypatch.setattr(state_module, "entity_text", counting)
    assert state.keyword_search("c1 e01234") == [("entity", "E01234")]
    assert read == ["E01234"]
