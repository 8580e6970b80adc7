"""The consumer's binding to the team vector store: card-side search, actor-side mirror.

Everything runs against a real store actor (the kit's LocalVectorStore) in a real team.
"""

from __future__ import annotations

import logging

import pytest

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.testing import LocalVectorStore, ToolTestAgent, spawn_local_vector_store
from akgentic.tool.core.vector_binding import (
    UNAVAILABLE_NOTE,
    VECTOR_STORE_CARD,
    CollectionMirror,
    VectorConsumerConfig,
    VectorSearchClient,
    vector_store_dependencies,
)
from akgentic.tool.core.vector_store import CollectionConfig, VectorDocument

SMALL = CollectionConfig(dimension=32)


def _docs(*texts: str) -> list[VectorDocument]:
    return [VectorDocument(ref=f"doc:{i}", text=text) for i, text in enumerate(texts)]


@pytest.fixture
def store(actor_system: ActorSystem, orchestrator: ActorAddress) -> LocalVectorStore:
    return spawn_local_vector_store(actor_system, orchestrator)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


# -- vector_store_dependencies --------------------------------------------------------


def test_dependency_on_the_store_card_follows_the_field() -> None:
    assert vector_store_dependencies(True, ["A"]) == ["A", VECTOR_STORE_CARD]
    assert vector_store_dependencies("#Other", [VECTOR_STORE_CARD, "A"]) == [
        "A",
        VECTOR_STORE_CARD,
    ]
    assert vector_store_dependencies(False, ["A", VECTOR_STORE_CARD, "B"]) == ["A", "B"]


def test_a_malformed_store_name_is_refused() -> None:
    with pytest.raises(ValueError, match="starts with '#'"):
        vector_store_dependencies("VectorStore", [])


# -- VectorSearchClient (card side) ---------------------------------------------------


def test_search_returns_cosine_hits_above_the_threshold(
    tool_agent: ToolTestAgent, store: LocalVectorStore
) -> None:
    store.create_collection("notes", SMALL)
    store.upsert("notes", _docs("my puppy sleeps", "the automobile is red"))
    client = VectorSearchClient("NotesTool", "notes")
    hits, note = client.vector_hits(tool_agent, True, lambda: True, "dog", top_k=5, threshold=0.3)
    assert note is None
    assert [ref for ref, _ in hits] == ["doc:0"]  # "puppy" and "dog" share a concept
    assert hits[0][1] >= 0.3


def test_degraded_store_is_reported_in_the_note(
    tool_agent: ToolTestAgent, store: LocalVectorStore
) -> None:
    store.create_collection("notes", SMALL)
    store.set_degraded("provider down")
    hits, note = VectorSearchClient("NotesTool", "notes").vector_hits(
        tool_agent, True, lambda: True, "dog", top_k=5, threshold=0.0
    )
    assert hits == []
    assert note == "semantic search degraded: provider down"


def test_without_a_store_search_degrades_with_a_note(tool_agent: ToolTestAgent) -> None:
    client = VectorSearchClient("NotesTool", "notes")
    assert client.vector_hits(tool_agent, True, lambda: True, "x", top_k=5, threshold=0.0) == (
        [],
        UNAVAILABLE_NOTE,
    )


def test_disabled_search_never_asks_the_actor(tool_agent: ToolTestAgent) -> None:
    asked: list[bool] = []

    def mirrored() -> bool:
        asked.append(True)
        return True

    client = VectorSearchClient("NotesTool", "notes")
    assert client.vector_hits(tool_agent, False, mirrored, "x", top_k=5, threshold=0.0) == (
        [],
        None,
    )
    off = client.vector_hits(
        tool_agent, False, mirrored, "x", top_k=5, threshold=0.0, disabled_note="off"
    )
    assert off == ([], "off")
    assert asked == []


def test_actor_without_a_mirror_means_no_semantic_search(
    tool_agent: ToolTestAgent, store: LocalVectorStore
) -> None:
    store.create_collection("notes", SMALL)
    client = VectorSearchClient("NotesTool", "notes")
    result = client.vector_hits(tool_agent, True, lambda: False, "x", top_k=5, threshold=0.0)
    assert result == ([], UNAVAILABLE_NOTE)


def test_a_failing_lookup_is_logged_and_degrades(
    tool_agent: ToolTestAgent, caplog: pytest.LogCaptureFixture
) -> None:
    def broken() -> bool:
        raise RuntimeError("actor gone")

    client = VectorSearchClient("NotesTool", "notes")
    with caplog.at_level(logging.WARNING, logger="akgentic.tool.core.vector_binding"):
        result = client.vector_hits(tool_agent, True, broken, "x", top_k=5, threshold=0.0)
    assert result == ([], UNAVAILABLE_NOTE)
    assert "NotesTool: vector store lookup failed: actor gone" in caplog.text


def test_unknown_collection_forgets_the_store_then_recovers(
    tool_agent: ToolTestAgent, store: LocalVectorStore
) -> None:
    client = VectorSearchClient("NotesTool", "notes")
    hits, note = client.vector_hits(tool_agent, True, lambda: True, "dog", top_k=5, threshold=0.0)
    assert (hits, note) == ([], "semantic search unavailable (UnknownCollectionError)")
    store.create_collection("notes", SMALL)
    store.upsert("notes", _docs("dog"))
    hits, note = client.vector_hits(tool_agent, True, lambda: True, "dog", top_k=5, threshold=0.0)
    assert note is None
    assert [ref for ref, _ in hits] == ["doc:0"]


def test_top_k_bounds_the_hits(tool_agent: ToolTestAgent, store: LocalVectorStore) -> None:
    store.create_collection("notes", SMALL)
    store.upsert("notes", _docs("my puppy sleeps", "a hound barks", "puppy"))
    client = VectorSearchClient("NotesTool", "notes")
    hits, note = client.vector_hits(tool_agent, True, lambda: True, "dog", top_k=2, threshold=0.1)
    assert note is None
    assert len(hits) == 2
    assert hits[0][0] == "doc:2"  # the bare concept scores highest


def test_a_failing_search_is_logged_and_named_in_the_note(
    tool_agent: ToolTestAgent, store: LocalVectorStore, caplog: pytest.LogCaptureFixture
) -> None:
    store.create_collection("notes", SMALL)
    client = VectorSearchClient("NotesTool", "notes")
    with caplog.at_level(logging.WARNING, logger="akgentic.tool.core.vector_binding"):
        # A blank query is not a query the store accepts.
        hits, note = client.vector_hits(tool_agent, True, lambda: True, " ", top_k=5, threshold=0.0)
    assert (hits, note) == ([], "semantic search failed (ValidationError)")
    (record,) = caplog.records
    assert record.getMessage().startswith("NotesTool: vector search failed: 1 validation error")


# -- CollectionMirror (actor side) ----------------------------------------------------


def test_mirror_binds_creates_the_collection_and_sends_everything(
    tool_agent: ToolTestAgent, store: LocalVectorStore
) -> None:
    documents = _docs(*(f"item {i}" for i in range(1203)))  # more than one upsert chunk
    mirror = CollectionMirror("#Notes", True, "notes", SMALL, retry_seconds=10)
    assert mirror.store(tool_agent, len(documents), lambda: documents) is not None
    assert store.list_collections() == ["notes"]
    assert len(store.refs("notes")) == 1203


def test_mirror_sends_nothing_when_the_counts_agree(
    tool_agent: ToolTestAgent, store: LocalVectorStore
) -> None:
    store.create_collection("notes", SMALL)
    store.upsert("notes", _docs("kept"))
    built: list[bool] = []

    def documents() -> list[VectorDocument]:
        built.append(True)
        return _docs("replacement")

    mirror = CollectionMirror("#Notes", True, "notes", SMALL, retry_seconds=10)
    assert mirror.store(tool_agent, 1, documents) is not None
    assert built == []


def test_mirror_looks_again_only_after_the_retry_interval(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    clock = Clock()
    mirror = CollectionMirror("#Notes", True, "notes", SMALL, retry_seconds=10, clock=clock)
    assert mirror.store(tool_agent, 1, lambda: _docs("late")) is None
    store = spawn_local_vector_store(actor_system, orchestrator)
    clock.now = 109.9
    assert mirror.store(tool_agent, 1, lambda: _docs("late")) is None  # not due yet
    assert store.list_collections() == []
    clock.now = 110.0  # exactly the interval after the miss at 100.0
    assert mirror.store(tool_agent, 1, lambda: _docs("late")) is not None
    assert store.refs("notes") == ["doc:0"]


def test_mirror_applies_deletes_then_upserts(
    tool_agent: ToolTestAgent, store: LocalVectorStore
) -> None:
    mirror = CollectionMirror("#Notes", True, "notes", SMALL, retry_seconds=10)
    mirror.apply(upserts=_docs("ignored"), deletes=[])  # nothing bound yet: no-op
    assert store.list_collections() == []
    assert mirror.store(tool_agent, 0, list) is not None
    mirror.apply(upserts=_docs("a", "b"), deletes=[])
    mirror.apply(upserts=[VectorDocument(ref="doc:0", text="again")], deletes=["doc:0", "doc:1"])
    assert store.refs("notes") == ["doc:0"]


def test_disabled_mirror_never_binds(tool_agent: ToolTestAgent, store: LocalVectorStore) -> None:
    mirror = CollectionMirror("#Notes", False, "notes", SMALL, retry_seconds=0)
    assert mirror.store(tool_agent, 1, lambda: _docs("x")) is None
    assert store.list_collections() == []


def test_an_unusable_store_is_logged_and_left_alone(
    tool_agent: ToolTestAgent, store: LocalVectorStore, caplog: pytest.LogCaptureFixture
) -> None:
    store.create_collection("notes", CollectionConfig(dimension=8))  # another config
    mirror = CollectionMirror("#Notes", True, "notes", SMALL, retry_seconds=10)
    with caplog.at_level(logging.WARNING, logger="akgentic.tool.core.vector_binding"):
        assert mirror.store(tool_agent, 1, lambda: _docs("x")) is None
    assert "#Notes: vector store #VectorStore unusable" in caplog.text
    assert store.refs("notes") == []


def test_mirror_for_an_actor_reads_its_config(
    tool_agent: ToolTestAgent, store: LocalVectorStore
) -> None:
    config = VectorConsumerConfig(name="#Notes", collection=SMALL, store_retry_seconds=3)
    mirror = CollectionMirror.for_actor(config, "notes")
    assert (mirror.owner, mirror.name, mirror.retry_seconds) == ("#Notes", "#VectorStore", 3)
    assert mirror.store(tool_agent, 0, list) is not None
    assert store.collection_stats("notes").config == SMALL
    off = CollectionMirror.for_actor(VectorConsumerConfig(vector_store=False), "notes")
    assert off.name is None
