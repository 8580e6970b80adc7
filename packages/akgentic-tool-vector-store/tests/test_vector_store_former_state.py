"""The store's persisted state on its own: a state stored by the predecessor
(akgentic-tool 1.6) is migrated into one record per collection when it is validated, and
dropping a record forgets the collection and marks the state changed (only when it did)."""

from __future__ import annotations

import logging
import math
from typing import Any

import numpy as np
import pytest

from akgentic.tool.core.vector_store import CollectionConfig
from akgentic.tool.vector_store.backend import CollectionRecord
from akgentic.tool.vector_store.protocol import CollectionStatus
from akgentic.tool.vector_store.state import VectorStoreState

DIM = 4
GOOD = [1.0, 0.0, 0.0, 0.0]
OTHER = [0.0, 0.5, 0.5, 0.0]


def entry(ref: str, text: str, vector: list[float] | None = None, **meta: Any) -> dict[str, Any]:
    """One entry as the predecessor stored it."""
    return {"ref_id": ref, "ref_type": "task", "text": text, "vector": vector, "metadata": meta}


def waiting(ref: str, text: str) -> dict[str, str]:
    """One pending entry as the predecessor stored it (strings only)."""
    return {"ref_id": ref, "ref_type": "task", "text": text}


def former_state(config: dict[str, Any], stored: list[Any], pending: list[Any]) -> VectorStoreState:
    """Validate a state of the predecessor's layout with one collection, ``tasks``."""
    return VectorStoreState.model_validate(
        {
            "collection_configs": {"tasks": {"dimension": DIM, **config}},
            "backend_state": {"tasks": stored},
            "pending_entries": {"tasks": pending},
        }
    )


def test_a_former_collection_keeps_usable_vectors_and_skips_unreadable_entries(
    caplog: pytest.LogCaptureFixture,
) -> None:
    stored = [
        entry("a", "alpha", GOOD),
        {"text": "an entry without a ref"},  # unreadable: dropped, the next ones are kept
        entry("short", "wrong length", [1.0, 0.0]),
        entry("nan", "not finite", [math.nan, 0.0, 0.0, 1.0]),
        entry("b", "beta", OTHER, colour="red"),
    ]
    with caplog.at_level(logging.WARNING, logger="akgentic.tool.vector_store"):
        state = former_state({}, stored, [waiting("p", "still pending")])

    assert caplog.messages == [
        "collection 'tasks': a stored entry could not be read and is dropped"
    ]
    record = state.collections["tasks"]
    assert record.config == CollectionConfig(dimension=DIM)
    assert record.refs == ["a", "short", "nan", "b", "p"]
    assert record.texts == ["alpha", "wrong length", "not finite", "beta", "still pending"]
    assert record.metadata[4] == {"ref_type": "task"}
    assert record.metadata[3] == {"ref_type": "task", "colour": "red"}
    assert record.vector_refs == ["a", "b"]
    np.testing.assert_array_equal(
        np.frombuffer(record.vectors, dtype=np.float32).reshape(-1, DIM),
        np.asarray([GOOD, OTHER], dtype=np.float32),
    )
    # Three documents wait for a vector: the two with unusable ones, and the pending one.
    assert state.indexing_pending == {"tasks": 3}


def test_a_former_collection_without_any_vector_stores_no_vector_bytes() -> None:
    state = former_state({}, [entry("a", "alpha")], [waiting("p", "pending")])

    record = state.collections["tasks"]
    assert record.refs == ["a", "p"]
    assert record.vector_refs == []
    assert record.vectors == b""


def test_a_former_workspace_collection_keeps_only_what_waits_for_an_embedding() -> None:
    stored = [entry("a", "alpha", GOOD), entry("w", "wrong length", [1.0], colour="blue")]
    state = former_state({"persistence": "workspace"}, stored, [waiting("p", "pending")])

    record = state.collections["tasks"]
    assert record.config.persistence == "workspace"
    assert record.refs == []
    assert record.vectors == b""
    assert record.unembedded == {"w": "wrong length", "p": "pending"}
    assert record.unembedded_metadata == {
        "w": {"ref_type": "task", "colour": "blue"},
        "p": {"ref_type": "task"},
    }


def test_a_former_collection_of_another_backend_keeps_only_what_waits_for_an_embedding() -> None:
    stored = [entry("a", "alpha", GOOD)]
    state = former_state({"backend": "qdrant"}, stored, [waiting("p", "pending")])

    record = state.collections["tasks"]
    assert (record.config.backend, record.config.persistence) == ("qdrant", "actor_state")
    assert record.refs == []
    assert record.unembedded == {"p": "pending"}
    assert record.unembedded_metadata == {"p": {"ref_type": "task"}}


def test_dropping_a_record_forgets_the_collection_and_marks_the_state_changed() -> None:
    state = VectorStoreState()
    state.put_record("a", CollectionRecord(config=CollectionConfig(dimension=DIM)))
    state.put_record("b", CollectionRecord(config=CollectionConfig(dimension=DIM)))
    state.notify_state_change()  # published: nothing changed since
    assert not state.dirty

    state.drop_record("a")

    assert list(state.collections) == ["b"]
    assert state.dirty


def test_dropping_an_unknown_record_changes_nothing() -> None:
    state = VectorStoreState()
    state.put_record("a", CollectionRecord(config=CollectionConfig(dimension=DIM)))
    state.notify_state_change()
    version = state.version

    state.drop_record("missing")

    assert list(state.collections) == ["a"]
    assert not state.dirty
    assert state.version == version


def test_a_former_collection_whose_entries_all_have_vectors_is_ready() -> None:
    state = former_state({}, [entry("a", "alpha", GOOD), entry("b", "beta", OTHER)], [])

    assert state.indexing_pending == {"tasks": 0}
    assert state.collection_statuses == {"tasks": CollectionStatus.READY}
