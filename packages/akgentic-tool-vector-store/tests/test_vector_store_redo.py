"""Drops replayed on resume: a store ended abruptly after dropping collections comes back
without them (also one created and dropped after its last snapshot), its next published
state no longer holds them, and the documents written late are named for every
collection."""

from __future__ import annotations

import logging
import uuid
from typing import Any

import pytest

from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.messages.orchestrator import StateChangedMessage
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core.testing import eventually
from akgentic.tool.core.vector_store import VECTOR_STORE_NAME, CollectionConfig
from akgentic.tool.vector_store.actor import VectorStoreActor
from akgentic.tool.vector_store.tool import VectorStoreTool

from .test_vector_store_persistence import (
    DIM,
    Recorder,
    SlowFlushStore,
    bind,
    last_published,
    resume_team,
    start_team,
    stop_team,
    store_seqs,
    vector_doc,
)

CONFIG = CollectionConfig(dimension=DIM)


def test_collections_dropped_after_the_snapshot_stay_dropped_after_a_resume(
    actor_system: ActorSystem, openai_env: Any, caplog: pytest.LogCaptureFixture
) -> None:
    team_id = uuid.uuid4()
    orchestrator, recorder = start_team(actor_system, team_id)
    orch = actor_system.proxy_ask(orchestrator, Orchestrator)
    address = orch.getChildrenOrCreate(SlowFlushStore, VectorStoreTool().store_config())
    store = bind(actor_system, orchestrator, "@Writer")
    store.create_collection("gone", CONFIG)  # seq 1
    store.create_collection("kept", CONFIG)  # seq 2
    store.upsert("gone", [vector_doc("g", "gone soon")])  # seq 3
    store.upsert("kept", [vector_doc("k", "kept")])  # seq 4
    actor_system.proxy_ask(address, VectorStoreActor).flush_state()  # snapshot at seq 4
    eventually(lambda: last_published(recorder) == ["gone", "kept"])
    cut = len(recorder.messages())
    store.drop_collection("gone")  # seq 5
    store.create_collection("brief", CONFIG)  # seq 6
    store.drop_collection("brief")  # seq 7: never in any snapshot
    store.create_collection("fresh", CONFIG)  # seq 8: missing after the resume
    store.upsert("fresh", [vector_doc("f", "fresh")])  # seq 9
    store.upsert("kept", [vector_doc("late", "written late")])  # seq 10
    eventually(lambda: store_seqs(actor_system, orchestrator) == list(range(1, 11)))
    # The process dies here, before any state newer than the snapshot is stored (the
    # events are): the drops are known from the events only.
    frozen = [
        m
        for index, m in enumerate(recorder.messages())
        if index < cut or not isinstance(m, StateChangedMessage)
    ]
    stop_team(actor_system, orchestrator)
    last = [m.state for m in frozen if isinstance(m, StateChangedMessage)][-1]
    assert sorted(last.collections) == ["gone", "kept"]

    with caplog.at_level(logging.WARNING, logger="akgentic.tool.vector_store.actor"):
        resumed = resume_team(actor_system, team_id, frozen, VectorStoreActor)
        store = bind(actor_system, resumed, "@Reader")
        collections = store.list_collections()
    late = [r for r in caplog.records if "'late'" in r.getMessage()]

    assert collections == ["kept"]
    assert len(late) == 1
    assert late[0].levelno == logging.WARNING
    assert "kept" in late[0].getMessage()

    # What the resumed store publishes next no longer holds the dropped collection.
    published = Recorder()
    resumed_orch = actor_system.proxy_ask(resumed, Orchestrator)
    resumed_orch.subscribe(published)
    resumed_address = resumed_orch.get_team_member(VECTOR_STORE_NAME)
    actor_system.proxy_ask(resumed_address, VectorStoreActor).flush_state()
    eventually(lambda: last_published(published) == ["kept"])
    stop_team(actor_system, resumed)
