"""Stored vector-store configurations and state of akgentic-tool 1.6 load, round-trip, work.

Every entry of ``fixtures/stored_config.yaml`` round-trips (a standard test, in
test_standard.py, but for a CollectionConfig, checked here). Cards are then wired by a ``ToolFactory`` to an agent of a real team; the store they create is used the
predecessor's way (``create_collection``, ``add`` entries named by ``ref_id``/``ref_type``,
``search`` with a query vector, ``remove``). A state persisted in the predecessor's layout
is migrated on load and restored into a running store, which then answers searches.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import yaml

from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.factory import ToolFactory
from akgentic.tool.core.testing import StoredFormTests, ToolTestAgent, eventually
from akgentic.tool.core.vector_store import CollectionConfig, VectorStoreConfig
from akgentic.tool.vector_store import (
    VS_ACTOR_ROLE,
    CollectionStatus,
    SearchResult,
    VectorEntry,
    VectorStoreActor,
    VectorStoreService,
    VectorStoreState,
    VectorStoreTool,
)

DIM = 64  # the dimension of the tests' hash embedding (conftest)
ENTRIES = StoredFormTests.stored_entries(__file__, yaml.safe_load)


def by_card(card: str) -> list[dict[str, Any]]:
    return [entry for entry in ENTRIES if entry["card"] == card]


def store_of(system: ActorSystem, card: VectorStoreTool) -> VectorStoreActor:
    assert card.store_address is not None
    store: VectorStoreActor = system.proxy_ask(card.store_address, VectorStoreActor, 10)
    return store


@pytest.mark.parametrize("entry", by_card("CollectionConfig"))
def test_a_stored_collection_config_round_trips(entry: dict[str, Any]) -> None:
    # The other stored models pass core's standard stored-form checks (test_standard.py);
    # a CollectionConfig is stored inside the model holding it, without a __model__.
    loaded = CollectionConfig.model_validate(entry["config"])
    assert CollectionConfig.model_validate(loaded.model_dump()).model_dump() == loaded.model_dump()


@pytest.mark.parametrize(
    "entry", by_card("VectorStoreTool"), ids=[e["about"] for e in by_card("VectorStoreTool")]
)
def test_a_stored_card_builds_a_store_used_the_predecessors_way(
    entry: dict[str, Any],
    actor_system: ActorSystem,
    tool_agent: ToolTestAgent,
    openai_env: Any,
    hash_embed: Any,
) -> None:
    card = VectorStoreTool.model_validate(entry["config"])  # round trip: test_standard.py
    factory = ToolFactory([card], observer=tool_agent)
    assert factory.get_tools() == []  # the predecessor's card exposed no tool either
    store = store_of(actor_system, card)
    assert issubclass(VectorStoreActor, VectorStoreService)
    assert card.store_config().role == VS_ACTOR_ROLE == "ToolActor"

    (collection,) = by_card("CollectionConfig")
    store.create_collection(config=CollectionConfig.model_validate(collection["config"]), name="t")
    texts = ["database migration plan for postgres", "rotate the production certificates"]
    vectors = hash_embed(texts)
    receipt = store.add(
        "t",
        [
            {"ref_id": "a", "ref_type": "task", "text": texts[0], "vector": vectors[0].tolist()},
            VectorEntry(ref_id="b", ref_type="note", text=texts[1], vector=vectors[1].tolist()),
            {"ref_id": "c", "ref_type": "task", "text": "embedded by the store"},
        ],
    )
    assert (receipt.accepted, receipt.pending) == (3, 1)
    result = store.search("t", query_vector=vectors[1].tolist(), top_k=2)
    assert isinstance(result, SearchResult)
    assert (result.hits[0].ref_id, result.hits[0].ref_type) == ("b", "note")
    assert result.hits[0].score == pytest.approx(1.0, abs=1e-5)
    # The third entry is embedded by the store's worker (the local embedding server).
    settled = eventually(
        lambda: (r := store.search("t", vectors[0].tolist(), 3)).indexing_pending == 0 and r
    )
    assert settled.status is CollectionStatus.READY
    by_own_text = store.search("t", hash_embed(["embedded by the store"])[0].tolist(), 1)
    assert by_own_text.hits[0].ref_id == "c"
    assert by_own_text.hits[0].score == pytest.approx(1.0, abs=1e-5)
    assert store.remove("t", ["a", "zzz"]) == 1
    assert [hit.ref_id for hit in store.search("t", query_vector=vectors[0].tolist()).hits] != ["a"]
    (row,) = store.embed(["rotate the production certificates"])
    assert len(row) == DIM
    assert np.allclose(row, vectors[1], atol=1e-5)


def test_a_predecessor_state_is_migrated_and_restored(
    actor_system: ActorSystem, tool_agent: ToolTestAgent, openai_env: Any, hash_embed: Any
) -> None:
    (entry,) = by_card("VectorStoreState")
    state = VectorStoreState.model_validate(entry["config"])
    record = state.collections["planning_tasks"]
    assert record.refs == ["task-1", "task-2", "task-3"]
    assert record.vector_refs == ["task-1", "task-2"]
    assert record.metadata[0] == {"ref_type": "task"}
    # The former input fields are consumed; the reported ones are recomputed.
    assert (state.collection_configs, state.backend_state, state.pending_entries) == ({}, {}, {})
    assert state.collection_statuses == {"planning_tasks": CollectionStatus.INDEXING}
    assert state.indexing_pending == {"planning_tasks": 1}

    card = VectorStoreTool()
    ToolFactory([card], observer=tool_agent)
    store = store_of(actor_system, card)
    store.init_state(state)
    query = hash_embed(["rotate the production certificates"])[0].tolist()
    first = store.search("planning_tasks", query_vector=query, top_k=1)
    assert first.hits[0].ref_id == "task-2"
    assert first.hits[0].ref_type == "task"
    # The entry that was pending is embedded after the restore.
    eventually(lambda: store.search("planning_tasks", query, 3).indexing_pending == 0)


def test_entries_keep_ref_and_ref_id_in_step() -> None:
    entry = VectorEntry.model_validate({"ref_id": "x", "ref_type": "task", "text": "t"})
    assert (entry.ref, entry.ref_id, entry.metadata) == ("x", "x", {"ref_type": "task"})
    ours = VectorEntry(ref="y", text="t", metadata={"ref_type": "note"})
    assert (ours.ref_id, ours.ref_type) == ("y", "note")
    assert VectorEntry.model_validate(ours.model_dump()) == ours
    with pytest.raises(ValueError, match="two documents"):
        VectorEntry(ref="a", ref_id="b", text="t")
    with pytest.raises(ValueError, match="needs its ref"):
        VectorEntry(text="t")


def test_a_stored_store_config_keeps_its_weaviate_overrides() -> None:
    [entry] = by_card("VectorStoreConfig")
    config = VectorStoreConfig.model_validate(entry["config"])  # round trip: test_standard.py
    assert config.weaviate_url == "http://weaviate.internal:8080"
    assert config.weaviate_api_key == "wv-stored-key"
