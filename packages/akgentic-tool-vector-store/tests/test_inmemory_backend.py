"""The in-memory backend on its own: documents, vectors, keyword scoring, files."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from akgentic.tool.core.vector_store import CollectionConfig, VectorDocument
from akgentic.tool.vector_store.backend import CollectionRecord, KeywordMatcher
from akgentic.tool.vector_store.inmemory import FILE_SUFFIX, InMemoryBackend

CONFIG = CollectionConfig(dimension=3)


def doc(ref: str, text: str, vector: list[float] | None = None, **meta: Any) -> VectorDocument:
    return VectorDocument(ref=ref, text=text, vector=vector, metadata=meta)


def test_keyword_scores_phrase_words_and_misses() -> None:
    matcher = KeywordMatcher("Login  Page")
    assert matcher.score("redesign the login page") == 1.0
    assert matcher.score("the page title") == 0.5
    assert matcher.score("nothing here") == 0.0
    assert KeywordMatcher("   ").score("anything") == 0.0


def test_put_search_and_rewrite() -> None:
    backend = InMemoryBackend("c", CONFIG)
    backend.put(
        [
            doc("x", "alpha task", [1, 0, 0], team="red"),
            doc("y", "beta task", [0, 1, 0], team="blue"),
            doc("z", "gamma pending"),
        ]
    )
    assert backend.counts() == (3, 2)
    assert backend.unembedded() == {"z": "gamma pending"}

    hits = backend.vector_search(np.array([1, 0.1, 0], dtype=np.float32), 5, 0.0, {})
    assert [h.ref for h in hits] == ["x", "y"]
    assert hits[0].metadata == {"team": "red"}
    blue = backend.vector_search(np.array([1, 0, 0], dtype=np.float32), 5, -1.0, {"team": "blue"})
    assert [h.ref for h in blue] == ["y"]
    words = backend.keyword_search("task", 10, {})
    assert [(h.ref, h.score, h.match) for h in words] == [
        ("x", 1.0, "keyword"),
        ("y", 1.0, "keyword"),
    ]

    backend.put([doc("x", "alpha rewritten")])  # new text: the old vector is stale
    assert backend.counts() == (3, 1)
    backend.set_vectors(["x", "gone"], np.array([[0, 0, 1], [1, 1, 1]], dtype=np.float32))
    assert backend.counts() == (3, 2)
    assert backend.delete(["x", "x", "nope"]) == ["x"]
    assert backend.counts() == (2, 1)


def test_record_round_trip_keeps_documents_and_vectors() -> None:
    backend = InMemoryBackend("c", CONFIG)
    backend.put([doc("a", "one", [1, 2, 3], n=1), doc("b", "two")])
    again = InMemoryBackend.from_record(
        "c", CollectionRecord.model_validate(backend.record().model_dump())
    )
    assert again.counts() == (2, 1)
    assert again.unembedded() == {"b": "two"}
    entry = {e.ref: e for e in again.entries()}["a"]
    np.testing.assert_allclose(
        entry.vector, np.array([1, 2, 3]) / np.linalg.norm([1, 2, 3]), atol=1e-6
    )
    assert entry.metadata == {"n": 1}
    broken = CollectionRecord(config=CONFIG, refs=["a"], texts=[], metadata=[])
    with pytest.raises(ValueError, match="inconsistent record"):
        InMemoryBackend.from_record("c", broken)


def test_workspace_file_is_replaced_atomically(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = CollectionConfig(dimension=3, persistence="workspace")
    backend = InMemoryBackend("c", config, tmp_path)
    backend.put([doc("a", "first", [1, 0, 0])])
    backend.flush()
    path = tmp_path / f"c{FILE_SUFFIX}"
    original = path.read_bytes()

    backend.put([doc("b", "second", [0, 1, 0])])

    def refuse(src: Any, dst: Any, **dir_fds: Any) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError, match="disk full"):
        backend.flush()
    assert path.read_bytes() == original
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]

    monkeypatch.undo()
    backend.flush()
    reloaded = InMemoryBackend("c", config, tmp_path)
    reloaded.load()
    assert reloaded.counts() == (2, 2)
    assert backend.record().refs == []  # the state holds no documents in this mode


def test_a_file_of_another_dimension_is_refused(tmp_path: Path) -> None:
    wide = InMemoryBackend("c", CollectionConfig(dimension=3, persistence="workspace"), tmp_path)
    wide.put([doc("a", "x", [1, 0, 0])])
    wide.flush()
    narrow = InMemoryBackend("c", CollectionConfig(dimension=2, persistence="workspace"), tmp_path)
    with pytest.raises(ValueError, match="dimension 3"):
        narrow.load()
    narrow.drop()
    assert not (tmp_path / f"c{FILE_SUFFIX}").exists()


def test_workspace_mode_needs_a_directory() -> None:
    with pytest.raises(ValueError, match="needs a directory"):
        InMemoryBackend("c", CollectionConfig(persistence="workspace"))


# -- the predecessor's interface: InMemoryBackend() as a set of collections ----------------


def entry(ref_id: str, text: str, vector: list[float] | None = None) -> Any:
    from akgentic.tool.vector_store.vector import VectorEntry

    return VectorEntry(ref_id=ref_id, ref_type="task", text=text, vector=vector)


def test_the_predecessor_form_creates_adds_searches_and_removes() -> None:
    from akgentic.tool.core.vector_store import UnknownCollectionError
    from akgentic.tool.vector_store.protocol import SearchHit

    backend = InMemoryBackend()
    backend.create_collection("tasks", CONFIG)
    backend.create_collection("tasks", CONFIG)  # idempotent
    with pytest.raises(ValueError, match="another configuration"):
        backend.create_collection("tasks", CollectionConfig(dimension=4))

    added = backend.add(
        "tasks",
        [
            entry("t1", "write the migration", [1, 0, 0]),
            entry("t2", "review the login page", [0, 1, 0]),
            {"ref_id": "t3", "ref_type": "note", "text": "no vector yet"},
        ],
    )
    hits = backend.search("tasks", [1, 0.2, 0], 2)
    by_name = backend.search(collection="tasks", query_vector=[0, 1, 0], top_k=1)

    assert added == 3
    assert all(isinstance(hit, SearchHit) for hit in hits)
    assert [(h.ref_id, h.ref_type, h.text) for h in hits] == [
        ("t1", "task", "write the migration"),
        ("t2", "task", "review the login page"),
    ]
    assert hits[0].score == pytest.approx(1 / np.sqrt(1.04), abs=1e-6)
    assert [h.ref_id for h in by_name] == ["t2"]
    assert backend.collection("tasks").unembedded() == {"t3": "no vector yet"}
    assert backend.collection("tasks").keyword_search("vector", 5, {})[0].ref == "t3"

    with pytest.raises(ValueError, match="expects 3"):
        backend.add("tasks", [entry("bad", "wrong size", [1, 0])])
    assert backend.collection("tasks").counts() == (3, 2)  # nothing half-stored

    assert backend.remove("tasks", ["t1", "missing"]) == 1
    assert [h.ref_id for h in backend.search("tasks", [1, 0, 0], 5)] == ["t2"]
    with pytest.raises(UnknownCollectionError, match="create_collection"):
        backend.add("nope", [entry("x", "y", [1, 0, 0])])


def test_a_named_backend_is_reachable_through_the_predecessor_methods_too() -> None:
    backend = InMemoryBackend("c", CONFIG)
    backend.add("c", [entry("a", "alpha", [0, 0, 1])])
    assert backend.counts() == (1, 1)
    assert backend.search("c", [0, 0, 1], 1)[0].ref_id == "a"
    with pytest.raises(TypeError):
        InMemoryBackend("only-a-name")


def test_get_state_and_restore_state_round_trip() -> None:
    from akgentic.tool.vector_store.actor import VectorStoreState

    source = InMemoryBackend()
    source.create_collection("tasks", CONFIG)
    source.create_collection("other", CollectionConfig(dimension=2))
    source.add("tasks", [entry("t1", "alpha", [3, 0, 0]), entry("t2", "beta")])
    source.add("other", [entry("o1", "gamma", [0, 1])])
    state = source.get_state()

    restored = InMemoryBackend()
    restored.restore_state(state)

    assert state["tasks"]["config"]["dimension"] == 3
    assert {e["ref_id"] for e in state["tasks"]["entries"]} == {"t1", "t2"}
    assert sorted(restored.collections) == ["other", "tasks"]
    assert restored.collection("tasks").counts() == (2, 1)
    assert restored.search("tasks", [1, 0, 0], 5)[0].ref_id == "t1"
    assert restored.collection("tasks").unembedded() == {"t2": "beta"}
    assert restored.search("other", [0, 1], 1)[0].text == "gamma"

    # restoring again replaces the content rather than adding to it
    restored.add("tasks", [entry("t9", "extra", [0, 0, 1])])
    restored.restore_state(state)
    assert restored.collection("tasks").counts() == (2, 1)

    # a bare list of entries (older layout) gets its dimension from the first vector,
    # and the same layout is what the store's persisted state migrates from
    bare = InMemoryBackend()
    bare.restore_state({"notes": [{"ref_id": "n", "ref_type": "x", "text": "t", "vector": [1, 2]}]})
    assert bare.collection("notes").config.dimension == 2
    migrated = VectorStoreState(
        collection_configs={"tasks": state["tasks"]["config"]}, backend_state=state
    )
    assert migrated.collections["tasks"].refs == ["t1", "t2"]
    assert migrated.collections["tasks"].vector_refs == ["t1"]


def test_save_collection_and_load_collection_use_the_workspace_file(tmp_path: Path) -> None:
    source = InMemoryBackend()
    source.create_collection("tasks", CONFIG)
    source.add("tasks", [entry("t1", "alpha", [1, 0, 0]), entry("t2", "beta", [0, 1, 0])])
    path = source.save_collection("tasks", str(tmp_path))

    target = InMemoryBackend()
    loaded = target.load_collection("tasks", CONFIG, tmp_path)
    missing = target.load_collection("empty", CONFIG, tmp_path)

    assert path == tmp_path / f"tasks{FILE_SUFFIX}"
    assert loaded == 2
    assert missing == 0
    assert [h.ref_id for h in target.search("tasks", [0, 1, 0], 1)] == ["t2"]
    with pytest.raises(ValueError, match="dimension 3"):
        InMemoryBackend().load_collection("tasks", CollectionConfig(dimension=4), tmp_path)

    ws = CollectionConfig(dimension=3, persistence="workspace", workspace_path=str(tmp_path / "w"))
    source.create_collection("kept", ws)
    source.add("kept", [entry("k", "kappa", [1, 1, 0])])
    source.collection("kept").flush()
    assert source.get_state()["kept"]["entries"] == []  # its documents are in its file
    assert InMemoryBackend().load_collection("kept", ws, tmp_path / "w") == 1


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ([1.0, 0.0], "document 'bad': vector has 2 values, expected 3"),
        (
            [1.0, float("nan"), 0.0],
            "document 'bad': vector contains NaN or infinity, or values too large for float32",
        ),
        (
            [3e38, 3e38, 3e38],
            "document 'bad': vector contains NaN or infinity, or values too large for float32",
        ),
    ],
)
def test_a_refused_vector_is_named_and_changes_nothing(bad: list[float], message: str) -> None:
    backend = InMemoryBackend("c", CONFIG)
    backend.put([doc("ok", "kept text", [1, 0, 0])])

    with pytest.raises(ValueError) as refused:
        backend.put([doc("ok", "new text", [0, 1, 0]), doc("bad", "bad text", bad)])

    assert str(refused.value) == message
    assert backend.counts() == (1, 1)
    assert [hit.text for hit in backend.keyword_search("text", 5, {})] == ["kept text"]
