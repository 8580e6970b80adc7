"""Keyword search answers from a token index, exactly as a scan of every text would.

The index is built by the first search and then follows every mutation; these tests
compare it with a plain substring scan after random changes, and check that a search
no longer reads the text of items that do not share the query's words.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import akgentic.tool.knowledge_graph.state as state_module
from akgentic.tool.knowledge_graph import Entity, KnowledgeGraphState, Relation
from akgentic.tool.knowledge_graph._texts import entity_text, relation_text
from akgentic.tool.knowledge_graph.event import KnowledgeGraphStateEvent

NAMES = ["Alpha", "alphabet", "Bé", "b", "Note-1", "notes", "ΣΑ", "x y"]
WORDS = st.sampled_from(
    ["alpha", "ALPHA", "b", "bé", "note", "-1", "s", "σα", "zz", "ph", "a", "|", "-[", "y"]
)


def _scan(state: KnowledgeGraphState, query: str) -> list[tuple[str, str]]:
    """The reference: every item whose lower-cased text holds every word of the query."""
    words = query.lower().split()
    if not words:
        return []
    found = [
        ("entity", name)
        for name, entity in state.entities.items()
        if all(w in entity_text(entity).lower() for w in words)
    ]
    return found + [
        ("relation", key)
        for key, relation in state.relations.items()
        if all(w in relation_text(relation).lower() for w in words)
    ]


_OPS = st.lists(
    st.one_of(
        st.tuples(
            st.just("entity"),
            st.sampled_from(NAMES),
            st.sampled_from(["", "alpha beta", "a note", "Bé|b"]),
            st.lists(st.sampled_from(["seen", "NOTE 2", "ph"]), max_size=2),
        ),
        st.tuples(st.just("drop"), st.sampled_from(NAMES)),
        st.tuples(
            st.just("relation"),
            st.sampled_from(NAMES),
            st.sampled_from(NAMES),
            st.sampled_from(["knows", "owns"]),
        ),
        st.tuples(st.just("search"), st.lists(WORDS, max_size=3)),
    ),
    max_size=30,
)


def _run(state: KnowledgeGraphState, op: tuple[Any, ...]) -> None:
    kind = op[0]
    if kind == "entity":
        _, name, description, observations = op
        state.put_entity(
            Entity(
                name=name,
                entity_type="Thing",
                description=description,
                observations=tuple(observations),
            )
        )
    elif kind == "drop":
        state.remove_entity(op[1])
    elif kind == "relation":
        _, source, target, relation_type = op
        if source in state.entities and target in state.entities:
            state.put_relation(
                Relation(from_entity=source, to_entity=target, relation_type=relation_type)
            )
    else:
        query = " ".join(op[1])
        assert state.keyword_search(query) == _scan(state, query), query


@settings(max_examples=150, deadline=None)
@given(_OPS, st.lists(WORDS, min_size=1, max_size=3))
def test_index_answers_as_a_scan_after_any_changes(ops: list[Any], last: list[str]) -> None:
    state = KnowledgeGraphState()
    for op in ops:
        _run(state, op)
    query = " ".join(last)
    assert state.keyword_search(query) == _scan(state, query)


def test_index_follows_deltas_applied_after_the_first_search() -> None:
    state = KnowledgeGraphState()
    state.apply(
        KnowledgeGraphStateEvent(
            entities_added=[Entity(name="Old", entity_type="T", description="gone soon")]
        )
    )
    assert state.keyword_search("gone") == [("entity", "Old")]
    replaced = Entity(name="Old", entity_type="T", description="renewed")
    state.apply(KnowledgeGraphStateEvent(entities_modified=[replaced]))
    assert state.keyword_search("gone") == []
    assert state.keyword_search("renew") == [("entity", "Old")]
    state.apply(KnowledgeGraphStateEvent(entities_removed=["Old"]))
    assert state.keyword_search("renew") == []


def test_search_reads_only_the_items_sharing_the_rarest_word(monkeypatch: Any) -> None:
    """A 2,000-entity graph: a query naming one entity reads the text of a handful of
    items, not of the whole graph (the cost no longer grows with the graph)."""
    state = KnowledgeGraphState()
    for i in range(2_000):
        state.put_entity(
            Entity(name=f"E{i:05d}", entity_type="Thing", description=f"in cluster c{i % 9}")
        )
    assert state.keyword_search("e00042 cluster") == [("entity", "E00042")]
    reads: list[str] = []

    def counting(entity: Entity) -> str:
        reads.append(entity.name)
        return entity_text(entity)

    monkeypatch.setattr(state_module, "entity_text", counting)
    assert state.keyword_search("cluster e01234") == [("entity", "E01234")]
    assert state.keyword_search("e0199 c3") == [("entity", "E01992")]
    assert len(reads) <= 12, reads  # 1 + the ten names starting E0199


def test_a_shared_word_keeps_every_holder_as_items_come_and_go() -> None:
    state = KnowledgeGraphState()
    for name in ("A", "B", "C"):
        state.put_entity(Entity(name=name, entity_type="T", description="shared word"))
    assert state.keyword_search("shared") == [("entity", n) for n in ("A", "B", "C")]
    state.remove_entity("B")
    assert state.keyword_search("shared") == [("entity", "A"), ("entity", "C")]
    state.put_entity(Entity(name="A", entity_type="T", description="other"))
    assert state.keyword_search("shared") == [("entity", "C")]
    state.put_entity(Entity(name="B", entity_type="T", description="shared again"))
    assert state.keyword_search("shared") == [("entity", "C"), ("entity", "B")]
    state.remove_entity("C")
    state.remove_entity("B")
    assert state.keyword_search("shared") == []
