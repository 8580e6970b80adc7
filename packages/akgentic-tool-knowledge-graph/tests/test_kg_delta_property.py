"""Property: for any sequence of batches, replaying the emitted deltas rebuilds the graph."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from akgentic.tool.knowledge_graph import KnowledgeGraphState, ManageGraph
from akgentic.tool.knowledge_graph._update import apply_update

NAMES = st.sampled_from(["A", "B", "C", "D", "E"])
TYPES = st.sampled_from(["knows", "owns"])


def _entity() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"name": NAMES, "entity_type": st.sampled_from(["T", "U"])},
        optional={"description": st.sampled_from(["", "x", "y"]), "is_root": st.booleans()},
    )


def _update() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"name": NAMES},
        optional={
            "description": st.sampled_from(["x", "z"]),
            "add_observations": st.lists(st.sampled_from(["o1", "o2"]), max_size=2),
            "remove_observations": st.lists(st.sampled_from(["o1", "o2"]), max_size=1),
            "is_root": st.booleans(),
        },
    )


def _relation() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"from_entity": NAMES, "to_entity": NAMES, "relation_type": TYPES},
        optional={"description": st.sampled_from(["", "d"])},
    )


BATCH = st.fixed_dictionaries(
    {},
    optional={
        "create_entities": st.lists(_entity(), max_size=4),
        "update_entities": st.lists(_update(), max_size=3),
        "delete_entities": st.lists(NAMES, max_size=2),
        "create_relations": st.lists(_relation(), max_size=4),
        "delete_relations": st.lists(_relation(), max_size=2),
    },
)


@settings(max_examples=100, deadline=None)
@given(st.lists(BATCH, min_size=1, max_size=8))
def test_replayed_deltas_equal_the_live_graph(batches: list[dict[str, Any]]) -> None:
    live = KnowledgeGraphState()
    client = KnowledgeGraphState()
    seq = 0
    for raw in batches:
        outcome = apply_update(live, ManageGraph.model_validate(raw))
        if not outcome.delta.is_empty():
            seq += 1
            client.apply(outcome.delta, seq=seq)
        # Consistency of the live graph itself: relations only between existing entities.
        for relation in live.relations.values():
            assert relation.from_entity in live.entities
            assert relation.to_entity in live.entities
    assert client.same_graph(live)
    # The adjacency index agrees with a fresh rebuild.
    rebuilt = KnowledgeGraphState.model_validate_json(live.model_dump_json())
    for name in live.entities:
        assert live.relations_of(name) == rebuilt.relations_of(name)
