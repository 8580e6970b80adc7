"""The predecessor's worker messages (EmbeddingRequest -> EmbeddingResult / EmbeddingError)
on a real actor system: a worker answers them, and the store applies them exactly as it
applies its own workers' reports."""

from __future__ import annotations

import logging
import threading
from typing import Any, ClassVar

import numpy as np
import pytest

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent import Akgent
from akgentic.core.agent_config import BaseConfig
from akgentic.core.agent_state import BaseState
from akgentic.core.messages.orchestrator import StopMessage
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core.factory import ToolFactory
from akgentic.tool.core.testing import eventually
from akgentic.tool.core.vector_store import (
    VECTOR_STORE_NAME,
    CollectionConfig,
    VectorDocument,
    VectorQuery,
    VectorStore,
    embed_worker_name,
    lookup_vector_store,
    search_text,
)
from akgentic.tool.vector_store import (
    EmbeddingActor,
    EmbeddingError,
    EmbeddingRequest,
    EmbeddingResult,
    VectorEntry,
    VectorStoreTool,
)

DIM = 64
NOTES = CollectionConfig(dimension=DIM)
DOCS = [
    VectorDocument(ref="db", text="database migration plan for postgres"),
    VectorDocument(ref="ui", text="redesign the login page colours"),
    VectorDocument(ref="ops", text="rotate the production certificates"),
]


class Requester(Akgent[BaseConfig, BaseState]):
    """Plays the predecessor's store: creates a worker, tells it a request, keeps replies."""

    worker_class: ClassVar[type[EmbeddingActor]] = EmbeddingActor

    def on_start(self) -> None:
        self.replies: list[EmbeddingResult | EmbeddingError] = []

    def request(self, msg: EmbeddingRequest) -> ActorAddress:
        worker = self.createActor(
            self.worker_class,
            config=BaseConfig(
                name=embed_worker_name(msg.collection, msg.request_id), role="EmbeddingActor"
            ),
        )
        self.send(worker, msg)
        return worker

    def receiveMsg_EmbeddingResult(self, msg: EmbeddingResult) -> None:
        self.replies.append(msg)

    def receiveMsg_EmbeddingError(self, msg: EmbeddingError) -> None:
        self.replies.append(msg)

    def received(self) -> list[EmbeddingResult | EmbeddingError]:
        return list(self.replies)


def requester(system: ActorSystem, cls: type[Requester] = Requester) -> Any:
    address = system.createActor(cls, config=BaseConfig(name="@Requester", role="Test"))
    return system.proxy_ask(address, cls)


def test_a_worker_answers_a_request_with_vectors_in_order_and_stops(
    actor_system: ActorSystem, openai_env: Any, hash_embed: Any
) -> None:
    client = requester(actor_system)
    msg = EmbeddingRequest(
        collection="tasks",
        entries=[
            {"ref_id": "t1", "ref_type": "task", "text": "write the migration"},
            {"ref_id": "t2", "ref_type": "task", "text": "review the login page"},
        ],
    )
    worker = client.request(msg)
    eventually(lambda: len(client.received()) == 1)
    [reply] = client.received()

    assert isinstance(reply, EmbeddingResult)
    assert (reply.collection, reply.request_id) == ("tasks", msg.request_id)
    assert [(e.ref_id, e.ref_type, e.text) for e in reply.entries] == [
        ("t1", "task", "write the migration"),
        ("t2", "task", "review the login page"),
    ]
    expected = hash_embed(["write the migration", "review the login page"])
    np.testing.assert_allclose([e.vector for e in reply.entries], expected, atol=1e-6)
    assert openai_env.inputs() == [["write the migration", "review the login page"]]
    assert openai_env.requests[0]["body"]["model"] == "text-embedding-3-small"
    eventually(lambda: not worker.is_alive())


def test_a_worker_reports_a_provider_failure_as_an_embedding_error(
    actor_system: ActorSystem, openai_env: Any
) -> None:
    openai_env.fail_status = 500
    client = requester(actor_system)
    msg = EmbeddingRequest(
        collection="tasks",
        entries=[{"ref_id": "t1", "ref_type": "task", "text": "x"}],
        embedding_model="my-deployment",
        request_id="req-1",
    )
    worker = client.request(msg)
    eventually(lambda: len(client.received()) == 1)
    [reply] = client.received()

    assert isinstance(reply, EmbeddingError)
    assert (reply.collection, reply.request_id) == ("tasks", "req-1")
    assert "provider unavailable" in reply.error
    assert openai_env.requests[0]["body"]["model"] == "my-deployment"
    eventually(lambda: not worker.is_alive())


def test_a_worker_nobody_created_says_it_cannot_report_and_stops(
    actor_system: ActorSystem, openai_env: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="akgentic.tool.vector_store.embedding_actor")
    openai_env.fail_status = 500
    name = embed_worker_name("tasks", "req-9")
    worker = actor_system.createActor(
        EmbeddingActor, config=BaseConfig(name=name, role="EmbeddingActor")
    )
    entries = [{"ref_id": "t1", "ref_type": "task", "text": "x"}]
    actor_system.tell(
        worker, EmbeddingRequest(collection="tasks", entries=entries, request_id="req-9")
    )
    eventually(lambda: not worker.is_alive())

    failed, orphan = caplog.messages
    assert failed.startswith(f"embedding worker {name} failed: ")
    assert "provider unavailable" in failed
    assert orphan == f"embedding worker {name} has nobody to report request req-9 to"


def test_a_request_with_unreadable_entries_is_reported_not_raised(
    actor_system: ActorSystem, openai_env: Any
) -> None:
    client = requester(actor_system)
    client.request(EmbeddingRequest(collection="tasks", entries=[{"ref_id": "t1"}]))
    eventually(lambda: len(client.received()) == 1)
    [reply] = client.received()
    assert isinstance(reply, EmbeddingError)
    assert "text" in reply.error
    assert openai_env.requests == []


# -- the store takes the same messages -----------------------------------------------------


def store_and_address(
    system: ActorSystem, orchestrator: Any, agent: Any
) -> tuple[VectorStore, Any]:
    ToolFactory([VectorStoreTool()], observer=agent)
    store = lookup_vector_store(agent, VECTOR_STORE_NAME)
    assert store is not None
    address = system.proxy_ask(orchestrator, Orchestrator).get_team_member(VECTOR_STORE_NAME)
    return store, address


def stopped_actors(system: ActorSystem, orchestrator: Any) -> list[str]:
    orch = system.proxy_ask(orchestrator, Orchestrator)
    return [m.sender.name for m in orch.get_messages(message_type=StopMessage) if m.sender]


def entries_of(docs: list[VectorDocument], hash_embed: Any, dimension: int = DIM) -> list[Any]:
    vectors = hash_embed([doc.text for doc in docs], dimension).tolist()
    return [
        VectorEntry(ref_id=doc.ref, ref_type="note", text=doc.text, vector=vector)
        for doc, vector in zip(docs, vectors, strict=True)
    ]


def test_the_store_applies_a_result_for_its_request_and_drops_the_late_worker(
    actor_system: ActorSystem,
    orchestrator: Any,
    tool_agent: Any,
    openai_env: Any,
    hash_embed: Any,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="akgentic.tool.vector_store.actor")
    openai_env.gate = threading.Event()  # the store's own worker hangs until released
    store, address = store_and_address(actor_system, orchestrator, tool_agent)
    store.create_collection("notes", NOTES)
    receipt = store.upsert("notes", DOCS)
    assert receipt.request_id is not None
    waiting = store.collection_stats("notes")
    assert (waiting.pending, waiting.failed) == (3, 0)  # waiting is not failing

    # a result for a request the store never made changes nothing
    actor_system.tell(
        address,
        EmbeddingResult(
            collection="notes", request_id="unknown", entries=entries_of(DOCS, hash_embed)
        ),
    )
    actor_system.tell(
        address,
        EmbeddingResult(
            collection="notes", request_id=receipt.request_id, entries=entries_of(DOCS, hash_embed)
        ),
    )
    eventually(lambda: store.collection_stats("notes").embedded == 3)
    query = tuple(hash_embed(["postgres database migration"])[0].tolist())
    hits = store.search("notes", VectorQuery(vector=query, top_k=1)).hits

    openai_env.gate.set()  # the worker now reports too: its request is no longer awaited
    worker = embed_worker_name("notes", receipt.request_id)
    eventually(lambda: worker in stopped_actors(actor_system, orchestrator))
    stats = store.collection_stats("notes")

    assert [hit.ref for hit in hits] == ["db"]
    assert hits[0].match == "vector"
    assert (stats.documents, stats.embedded, stats.pending, stats.failed) == (3, 3, 0, 0)
    assert "#VectorStore: ignored a result for request unknown" in caplog.messages


def test_the_store_marks_a_request_failed_on_an_embedding_error_or_a_bad_result(
    actor_system: ActorSystem,
    orchestrator: Any,
    tool_agent: Any,
    openai_env: Any,
    hash_embed: Any,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="akgentic.tool.vector_store.actor")
    openai_env.gate = threading.Event()
    store, address = store_and_address(actor_system, orchestrator, tool_agent)
    store.create_collection("notes", NOTES)
    store.create_collection("other", NOTES)
    first = store.upsert("notes", DOCS[:1])
    second = store.upsert("other", DOCS[1:])

    actor_system.tell(
        address, EmbeddingError(collection="notes", request_id="unknown", error="ignored")
    )
    actor_system.tell(
        address,
        EmbeddingError(collection="notes", request_id=str(first.request_id), error="provider down"),
    )
    # vectors of the wrong length: the request fails as a worker's would
    actor_system.tell(
        address,
        EmbeddingResult(
            collection="other",
            request_id=str(second.request_id),
            entries=entries_of(DOCS[1:], hash_embed, dimension=8),
        ),
    )
    eventually(lambda: store.collection_stats("notes").failed == 1)
    eventually(lambda: store.collection_stats("other").failed == 2)
    answer = search_text(store, "notes", VectorQuery(text="postgres"), delay=0.02)
    other = search_text(store, "other", VectorQuery(text="certificates"), delay=0.02)

    assert answer.status == "degraded"
    assert "provider down" in str(answer.reason)
    assert [hit.ref for hit in answer.hits] == ["db"]
    assert other.status == "degraded"
    assert "lacks a vector of dimension 64" in str(other.reason)
    assert store.collection_stats("notes").embedded == 0
    assert "#VectorStore: ignored a failure of request unknown" in caplog.messages
