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

    def refuse(src: Any, dst: Any) -> None:
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
