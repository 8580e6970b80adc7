"""The store on core's DeltaToolActor: after an abrupt end, a resumed store replays the
events newer than its last snapshot before serving a call.

Events carry refs, not texts, so the replay redoes removals and drops (nothing deleted
comes back), names the documents it cannot bring back, and numbers its next event after
the last one of the history (no seq is used twice).
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

import pytest

from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.messages.orchestrator import StateChangedMessage
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core.testing import eventually
from akgentic.tool.core.vector_store import CollectionConfig
from akgentic.tool.vector_store._replay import plan_replay
from akgentic.tool.vector_store.actor import VectorStoreActor
from akgentic.tool.vector_store.event import VectorStoreStateEvent
from akgentic.tool.vector_store.tool import VectorStoreTool

from .test_vector_store_persistence import (
    DIM,
    SlowFlushStore,
    bind,
    resume_team,
    start_team,
    stop_team,
    store_seqs,
    vector_doc,
)


def test_a_store_ended_abruptly_replays_removals_and_continues_the_numbering(
    actor_system: ActorSystem, openai_env: Any, caplog: pytest.LogCaptureFixture
) -> None:
    team_id = uuid.uuid4()
    orchestrator, recorder = start_team(actor_system, team_id)
    orch = actor_system.proxy_ask(orchestrator, Orchestrator)
    address = orch.getChildrenOrCreate(SlowFlushStore, VectorStoreTool().store_config())
    store = bind(actor_system, orchestrator, "@Writer")
    store.create_collection("notes", CollectionConfig(dimension=DIM))
    store.upsert(
        "notes",
        [vector_doc("db", "database"), vector_doc("ui", "login"), vector_doc("ops", "certs")],
    )
    actor_system.proxy_ask(address, VectorStoreActor).flush_state()  # snapshot at seq 2
    store.delete("notes", ["ops"])  # seq 3, after the snapshot
    late = [vector_doc(f"late{i}", f"written late {i}") for i in range(11)]
    store.upsert("notes", late)  # seq 4, after the snapshot
    store.create_collection("later", CollectionConfig(dimension=DIM))  # seq 5
    eventually(lambda: store_seqs(actor_system, orchestrator) == [1, 2, 3, 4, 5])
    frozen = recorder.messages()  # the process dies here: no snapshot after seq 2
    stop_team(actor_system, orchestrator)
    last = [m.state for m in frozen if isinstance(m, StateChangedMessage)][-1]
    assert last.collections["notes"].refs == ["db", "ui", "ops"]

    with caplog.at_level(logging.WARNING, logger="akgentic.tool.vector_store.actor"):
        resumed = resume_team(actor_system, team_id, frozen, VectorStoreActor)
        store = bind(actor_system, resumed, "@Reader")
        stats = store.collection_stats("notes")
    assert (stats.documents, stats.embedded) == (2, 2)  # "ops" stays deleted
    named = ", ".join(f"'late{i}'" for i in range(10))  # the first ten, then "..."
    assert caplog.messages == [
        "#VectorStore: collection 'later' was created after the last snapshot and is "
        "missing; its writer creates it again",
        "#VectorStore: 11 document(s) of collection 'notes' written after the last snapshot "
        f"may be missing or old (events carry no texts): {named} ...; their writer sends "
        "them again",
    ]

    store.delete("notes", ["db"])
    eventually(lambda: store_seqs(actor_system, resumed) == [1, 2, 3, 4, 5, 6])
    stop_team(actor_system, resumed)


def test_the_replay_plan_follows_the_order_of_the_events() -> None:
    events = [
        VectorStoreStateEvent(collection="a", removed=["x"]),
        VectorStoreStateEvent(collection="b", dropped=True),
        VectorStoreStateEvent(collection="b", created=True),
        VectorStoreStateEvent(collection="b", upserted=["n"], removed=["m"]),
        VectorStoreStateEvent(collection="a", upserted=["y", "z"]),
        VectorStoreStateEvent(collection="a", removed=["z"]),
        VectorStoreStateEvent(collection="c", created=True),
        VectorStoreStateEvent(collection="c", dropped=True),
    ]
    plan = plan_replay(events)
    # "b" was dropped: what follows concerns a new "b", missing as a whole, and the
    # removal of "m" is not redone on the restored one.
    assert plan.dropped == ["b", "c"]
    assert plan.removed == {"a": ["x", "z"]}
    assert plan.missing_collections == ["b"]
    assert plan.missing == {"a": ["y"], "b": ["n"]}


def test_an_event_counts_its_refs_for_the_base() -> None:
    event = VectorStoreStateEvent(collection="a", created=True, upserted=["x"], embedded=["x"])
    assert event.change_count() == 3
    assert VectorStoreStateEvent(collection="a").is_empty()
