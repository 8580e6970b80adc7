"""Dropping a collection forgets everything the store knew of it, on a real actor system
with a real local OpenAI-compatible server: a collection created again under the same
name starts clean (no failure episode, no queued documents, no busy worker slot, no
overdue request that later fails it), and the published state no longer holds it. Also:
a failure report ends its request, so the request never counts as overdue later."""

from __future__ import annotations

import logging
import threading
import time
from typing import Any, ClassVar

import pytest

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core.testing import eventually
from akgentic.tool.core.vector_store import (
    CollectionConfig,
    VectorDocument,
    VectorQuery,
    VectorStore,
    VectorStoreConfig,
    embed_worker_name,
    lookup_vector_store,
)
from akgentic.tool.vector_store.actor import VectorStoreActor
from akgentic.tool.vector_store.embedding_actor import EmbeddingActor, EmbeddingError

from .test_embedding_messages import stopped_actors
from .test_vector_store_persistence import Recorder, last_published

DIM = 64
NOTES = CollectionConfig(dimension=DIM)
DOCS = [
    VectorDocument(ref="db", text="database migration plan for postgres"),
    VectorDocument(ref="ui", text="redesign the login page colours"),
]
STORE_NAME = "#DropStore"


class SilentWorker(EmbeddingActor):
    """Stands for a worker killed mid-call: it stops without ever reporting."""

    timeout_seconds: ClassVar[float] = 0.1

    def run(self, key: Any, payload: Any, cache: Any) -> None:
        self.stop()


class OneWorkerStore(VectorStoreActor):
    """One document request in flight at a time; silent workers overdue only after 5 s."""

    worker_class: ClassVar[type[EmbeddingActor]] = SilentWorker
    max_document_workers: ClassVar[int] = 1
    worker_report_margin_seconds: ClassVar[float] = 5.0


class SoonOverdueStore(VectorStoreActor):
    """Silent workers counted as failed 1 s after they start; failures last 0.2 s."""

    worker_class: ClassVar[type[EmbeddingActor]] = SilentWorker
    worker_report_margin_seconds: ClassVar[float] = 0.9
    negative_ttl_seconds: ClassVar[float] = 0.2


def open_store(
    system: ActorSystem, orchestrator: Any, agent: Any, cls: type[VectorStoreActor]
) -> tuple[VectorStore, ActorAddress]:
    """Start a store of class ``cls`` in the team; its client view and its address."""
    orch = system.proxy_ask(orchestrator, Orchestrator)
    address = orch.getChildrenOrCreate(cls, VectorStoreConfig(name=STORE_NAME))
    store = lookup_vector_store(agent, STORE_NAME)
    assert store is not None
    return store, address


def test_a_collection_created_again_does_not_inherit_the_failure_of_the_dropped_one(
    actor_system: ActorSystem, orchestrator: Any, tool_agent: Any, openai_env: Any
) -> None:
    store, _ = open_store(actor_system, orchestrator, tool_agent, VectorStoreActor)
    store.create_collection("notes", NOTES)
    openai_env.fail_status = 500
    store.upsert("notes", DOCS)
    eventually(lambda: store.search("notes", VectorQuery(text="login")).status == "degraded")

    assert store.drop_collection("notes")
    openai_env.fail_status = None
    store.create_collection("notes", NOTES)
    receipt = store.upsert("notes", DOCS)

    assert (receipt.pending, receipt.request_id is not None) == (2, True)
    eventually(lambda: store.collection_stats("notes").embedded == 2)
    assert store.search("notes", VectorQuery(text="login")).status != "degraded"


def test_a_query_of_the_dropped_collection_failing_late_does_not_fail_the_new_one(
    actor_system: ActorSystem,
    orchestrator: Any,
    tool_agent: Any,
    openai_env: Any,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="akgentic.tool.vector_store.actor")
    store, _ = open_store(actor_system, orchestrator, tool_agent, VectorStoreActor)
    store.create_collection("notes", NOTES)
    openai_env.gate = threading.Event()  # the query's worker hangs at the provider
    assert store.search("notes", VectorQuery(text="login")).status == "pending"
    eventually(lambda: len(openai_env.inputs()) == 1)

    assert store.drop_collection("notes")
    store.create_collection("notes", NOTES)
    openai_env.fail_status = 500  # the dropped collection's query now fails ...
    openai_env.gate.set()
    prefix = embed_worker_name("notes", "")

    def stopped_workers() -> list[str]:  # their request ids
        names = stopped_actors(actor_system, orchestrator)
        return [name.removeprefix(prefix) for name in names if name.startswith(prefix)]

    eventually(lambda: len(stopped_workers()) == 1)
    [stale] = stopped_workers()
    openai_env.fail_status = None  # ... and the provider is fine for the new collection
    receipt = store.upsert("notes", DOCS)

    assert (receipt.pending, receipt.request_id is not None) == (2, True)
    eventually(lambda: store.collection_stats("notes").embedded == 2)
    assert [m for m in caplog.messages if "ignored a failure" in m] == [
        f"{STORE_NAME}: ignored a failure of request {stale}"
    ]


def test_a_collection_created_again_has_a_free_worker_and_an_empty_queue(
    actor_system: ActorSystem, orchestrator: Any, tool_agent: Any, openai_env: Any
) -> None:
    store, _ = open_store(actor_system, orchestrator, tool_agent, OneWorkerStore)
    store.create_collection("notes", NOTES)
    store.create_collection("other", NOTES)
    first = store.upsert("notes", DOCS[:1])
    queued = store.upsert("notes", DOCS[1:])
    assert first.request_id is not None
    assert (queued.pending, queued.request_id) == (1, None)  # the only worker is busy

    store.drop_collection("notes")
    store.create_collection("notes", NOTES)
    again = store.upsert("notes", DOCS[:1])

    assert again.request_id is not None  # sent at once: nothing left of the dropped one
    # ... and the worker slot is taken again by it, not by the dropped collection's job
    assert store.upsert("other", DOCS[1:]).request_id is None


def test_requests_of_a_dropped_collection_never_fail_the_one_created_again(
    actor_system: ActorSystem, orchestrator: Any, tool_agent: Any, openai_env: Any
) -> None:
    store, _ = open_store(actor_system, orchestrator, tool_agent, SoonOverdueStore)
    store.create_collection("notes", NOTES)
    store.upsert("notes", DOCS)  # a document request whose worker never reports
    assert store.search("notes", VectorQuery(text="login")).status == "pending"  # a query one

    store.drop_collection("notes")
    store.create_collection("notes", NOTES)
    time.sleep(1.2)  # both requests would be overdue by now
    answer = store.search("notes", VectorQuery(text="login"))

    assert answer.status == "pending"
    assert answer.reason is not None
    assert "never reported" not in answer.reason


def test_a_reported_failure_is_not_counted_again_when_its_request_would_be_overdue(
    actor_system: ActorSystem, orchestrator: Any, tool_agent: Any, openai_env: Any
) -> None:
    store, address = open_store(actor_system, orchestrator, tool_agent, SoonOverdueStore)
    store.create_collection("notes", NOTES)
    receipt = store.upsert("notes", DOCS)
    actor_system.tell(
        address,
        EmbeddingError(collection="notes", request_id=str(receipt.request_id), error="down"),
    )
    assert store.search("notes", VectorQuery(text="login")).status == "degraded"

    time.sleep(1.2)  # the failure episode is over, and the request would be overdue
    answer = store.search("notes", VectorQuery(text="login"))

    assert answer.status == "pending"


def test_the_state_published_after_a_drop_no_longer_holds_the_collection(
    actor_system: ActorSystem, orchestrator: Any, tool_agent: Any, openai_env: Any
) -> None:
    recorder = Recorder()
    actor_system.proxy_ask(orchestrator, Orchestrator).subscribe(recorder)
    store, address = open_store(actor_system, orchestrator, tool_agent, VectorStoreActor)
    store.create_collection("notes", NOTES)
    store.create_collection("kept", NOTES)
    store.upsert("notes", [DOCS[0].model_copy(update={"vector": [1.0] * DIM})])
    actor_system.proxy_ask(address, VectorStoreActor).flush_state()
    eventually(lambda: last_published(recorder, STORE_NAME) == ["kept", "notes"])

    store.drop_collection("notes")

    eventually(lambda: last_published(recorder, STORE_NAME) == ["kept"])
