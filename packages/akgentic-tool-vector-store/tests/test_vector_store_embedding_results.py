"""Embedding outcomes reaching the store, on a real actor system with a real local
OpenAI-compatible server: the predecessor's ``EmbeddingResult`` / ``EmbeddingError``
messages for query texts and for documents (only the request and collection they name
count), the predecessor's vector search (top_k, ref_type, status), and the time budget
of blocking embeddings (the store's ``embed`` and a worker's ``EmbeddingRequest``)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.messages.orchestrator import StartMessage
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
from akgentic.tool.vector_store.embedding_actor import (
    EmbeddingActor,
    EmbeddingError,
    EmbeddingRequest,
    EmbeddingResult,
)
from akgentic.tool.vector_store.protocol import CollectionStatus
from akgentic.tool.vector_store.vector import EmbeddingServiceError, VectorEntry

from .test_embedding_messages import Requester, requester

DIM = 64
NOTES = CollectionConfig(dimension=DIM)
DOCS = [
    VectorDocument(ref="db", text="database migration plan for postgres"),
    VectorDocument(ref="ui", text="redesign the login page colours"),
    VectorDocument(ref="ops", text="rotate the production certificates"),
]
QUERY = "postgres database"


class QuickRetryStore(VectorStoreActor):
    """A failure keeps a collection keyword-only for 0.5 s only."""

    negative_ttl_seconds: ClassVar[float] = 0.5


class TightWorker(EmbeddingActor):
    """A worker with a 0.3 s budget for its whole job."""

    timeout_seconds: ClassVar[float] = 0.3


class TightStore(VectorStoreActor):
    worker_class: ClassVar[type[EmbeddingActor]] = TightWorker


def open_store(
    system: ActorSystem, orchestrator: Any, agent: Any, cls: type[VectorStoreActor]
) -> tuple[VectorStore, ActorAddress]:
    """Start a store of class ``cls`` in the team; its client view and its address."""
    orch = system.proxy_ask(orchestrator, Orchestrator)
    address = orch.getChildrenOrCreate(cls, VectorStoreConfig(name="#ResultStore"))
    store = lookup_vector_store(agent, "#ResultStore")
    assert store is not None
    return store, address


def worker_requests(system: ActorSystem, orchestrator: Any, collection: str) -> list[str]:
    """Request ids of the embedding workers started for ``collection``, in order."""
    prefix = embed_worker_name(collection, "")
    orch = system.proxy_ask(orchestrator, Orchestrator)
    names = [m.sender.name for m in orch.get_messages(message_type=StartMessage) if m.sender]
    return [name[len(prefix) :] for name in names if name.startswith(prefix)]


def with_vectors(docs: list[VectorDocument], hash_embed: Any) -> list[VectorDocument]:
    vectors = hash_embed([doc.text for doc in docs]).tolist()
    return [doc.model_copy(update={"vector": v}) for doc, v in zip(docs, vectors, strict=True)]


def entries_of(docs: list[VectorDocument], hash_embed: Any) -> list[VectorEntry]:
    vectors = hash_embed([doc.text for doc in docs]).tolist()
    return [
        VectorEntry(ref=doc.ref, text=doc.text, vector=v)
        for doc, v in zip(docs, vectors, strict=True)
    ]


def query_entry(text: str, hash_embed: Any) -> VectorEntry:
    return VectorEntry(ref="query", text=text, vector=hash_embed([text])[0].tolist())


@pytest.fixture
def gated(openai_env: Any) -> Iterator[Any]:
    """The provider holds every request until the test ends (workers never report)."""
    openai_env.gate = threading.Event()
    yield openai_env
    openai_env.gate.set()


# -- query texts ---------------------------------------------------------------------------


def test_a_result_for_a_query_request_answers_the_search_by_vector(
    actor_system: ActorSystem, orchestrator: Any, tool_agent: Any, gated: Any, hash_embed: Any
) -> None:
    store, address = open_store(actor_system, orchestrator, tool_agent, VectorStoreActor)
    store.create_collection("notes", NOTES)
    store.create_collection("other", NOTES)
    store.upsert("notes", with_vectors(DOCS, hash_embed))
    assert store.search("notes", VectorQuery(text=QUERY)).status == "pending"
    [request_id] = eventually(lambda: worker_requests(actor_system, orchestrator, "notes"))

    # The same request id under another collection is not this query's result.
    wrong = EmbeddingResult(
        collection="other", request_id=request_id, entries=[query_entry(QUERY, hash_embed)]
    )
    actor_system.tell(address, wrong)
    assert store.search("notes", VectorQuery(text=QUERY)).status == "pending"

    right = EmbeddingResult(
        collection="notes", request_id=request_id, entries=[query_entry(QUERY, hash_embed)]
    )
    actor_system.tell(address, right)
    answer = store.search("notes", VectorQuery(text=QUERY))

    assert answer.status == "ok"
    assert [(hit.ref, hit.match) for hit in answer.hits[:1]] == [("db", "vector")]
    assert worker_requests(actor_system, orchestrator, "notes") == [request_id]


def test_a_query_result_without_a_vector_makes_the_search_keyword_only(
    actor_system: ActorSystem, orchestrator: Any, tool_agent: Any, gated: Any, hash_embed: Any
) -> None:
    store, address = open_store(actor_system, orchestrator, tool_agent, VectorStoreActor)
    store.create_collection("notes", NOTES)
    store.upsert("notes", with_vectors(DOCS, hash_embed))
    store.search("notes", VectorQuery(text=QUERY))
    [request_id] = eventually(lambda: worker_requests(actor_system, orchestrator, "notes"))

    actor_system.tell(
        address, EmbeddingResult(collection="notes", request_id=request_id, entries=[])
    )
    answer = store.search("notes", VectorQuery(text=QUERY))

    assert answer.status == "degraded"
    assert "lacks a vector of dimension 64" in str(answer.reason)
    assert [hit.ref for hit in answer.hits] == ["db"]


def test_an_error_for_a_query_request_is_keyword_only_until_the_text_is_embedded_again(
    actor_system: ActorSystem, orchestrator: Any, tool_agent: Any, gated: Any, hash_embed: Any
) -> None:
    store, address = open_store(actor_system, orchestrator, tool_agent, QuickRetryStore)
    store.create_collection("notes", NOTES)
    store.create_collection("other", NOTES)
    store.upsert("notes", with_vectors(DOCS, hash_embed))
    store.search("notes", VectorQuery(text=QUERY))
    [request_id] = eventually(lambda: worker_requests(actor_system, orchestrator, "notes"))

    actor_system.tell(
        address, EmbeddingError(collection="other", request_id=request_id, error="elsewhere")
    )
    assert store.search("notes", VectorQuery(text=QUERY)).status == "pending"

    actor_system.tell(
        address, EmbeddingError(collection="notes", request_id=request_id, error="quota exceeded")
    )
    failed = store.search("notes", VectorQuery(text=QUERY))
    assert failed.status == "degraded"
    assert "quota exceeded" in str(failed.reason)
    assert [hit.ref for hit in failed.hits] == ["db"]

    time.sleep(0.7)  # the failure episode is over: the text is sent to embed once more
    assert store.search("notes", VectorQuery(text=QUERY)).status == "pending"
    retried = eventually(lambda: worker_requests(actor_system, orchestrator, "notes")[1:])
    assert len(retried) == 1
    assert retried[0] != request_id
    assert store.search("other", VectorQuery(text=QUERY)).status == "pending"


# -- documents -----------------------------------------------------------------------------


def test_reports_naming_another_collection_leave_a_document_request_waiting(
    actor_system: ActorSystem, orchestrator: Any, tool_agent: Any, gated: Any, hash_embed: Any
) -> None:
    store, address = open_store(actor_system, orchestrator, tool_agent, VectorStoreActor)
    store.create_collection("notes", NOTES)
    store.create_collection("other", NOTES)
    receipt = store.upsert("notes", DOCS)
    request_id = str(receipt.request_id)

    entries = entries_of(DOCS, hash_embed)
    actor_system.tell(
        address, EmbeddingResult(collection="other", request_id=request_id, entries=entries)
    )
    actor_system.tell(
        address, EmbeddingError(collection="other", request_id=request_id, error="elsewhere")
    )
    assert store.collection_stats("notes").pending == 3
    actor_system.tell(
        address, EmbeddingResult(collection="notes", request_id=request_id, entries=entries)
    )

    stats = eventually(lambda: store.collection_stats("notes"))
    assert (stats.documents, stats.embedded, stats.pending, stats.failed) == (3, 3, 0, 0)
    assert store.search("other", VectorQuery(text=QUERY)).status == "pending"


def test_an_unusable_vector_in_a_result_sets_only_its_document_apart(
    actor_system: ActorSystem, orchestrator: Any, tool_agent: Any, gated: Any, hash_embed: Any
) -> None:
    store, address = open_store(actor_system, orchestrator, tool_agent, VectorStoreActor)
    store.create_collection("notes", NOTES)
    receipt = store.upsert("notes", DOCS)
    entries = entries_of(DOCS, hash_embed)
    entries[1] = entries[1].model_copy(update={"vector": [1e39] * DIM})  # overflows float32

    actor_system.tell(
        address,
        EmbeddingResult(collection="notes", request_id=str(receipt.request_id), entries=entries),
    )

    stats = store.collection_stats("notes")
    assert (stats.documents, stats.embedded, stats.pending, stats.failed) == (3, 2, 0, 1)


# -- the predecessor's vector search -------------------------------------------------------


def test_the_predecessors_search_keeps_top_k_and_an_empty_ref_type_when_none_was_given(
    actor_system: ActorSystem, orchestrator: Any, tool_agent: Any, openai_env: Any, hash_embed: Any
) -> None:
    _, address = open_store(actor_system, orchestrator, tool_agent, VectorStoreActor)
    actor: Any = actor_system.proxy_ask(address, VectorStoreActor)
    actor.create_collection("notes", NOTES)
    docs = with_vectors(DOCS, hash_embed)
    docs[0] = docs[0].model_copy(update={"metadata": {"ref_type": "task"}})
    actor.upsert("notes", docs)

    login = actor.search("notes", query_vector=hash_embed(["login page"])[0].tolist(), top_k=1)
    database = actor.search("notes", hash_embed([QUERY])[0].tolist(), 2)

    assert [(hit.ref_id, hit.ref_type) for hit in login.hits] == [("ui", "")]
    assert len(database.hits) == 2
    assert (database.hits[0].ref_id, database.hits[0].ref_type) == ("db", "task")
    assert (login.status, login.indexing_pending) == (CollectionStatus.READY, 0)


def test_the_predecessors_search_says_indexing_then_error_when_the_embedding_fails(
    actor_system: ActorSystem, orchestrator: Any, tool_agent: Any, gated: Any, hash_embed: Any
) -> None:
    _, address = open_store(actor_system, orchestrator, tool_agent, VectorStoreActor)
    actor: Any = actor_system.proxy_ask(address, VectorStoreActor)
    actor.create_collection("notes", NOTES)
    receipt = actor.upsert("notes", DOCS)
    vector = hash_embed([QUERY])[0].tolist()

    waiting = actor.search("notes", query_vector=vector, top_k=3)
    actor_system.tell(
        address,
        EmbeddingError(collection="notes", request_id=str(receipt.request_id), error="down"),
    )
    failing = actor.search("notes", query_vector=vector, top_k=3)

    assert (waiting.status, waiting.indexing_pending, waiting.hits) == (
        CollectionStatus.INDEXING,
        3,
        [],
    )
    assert (failing.status, failing.indexing_pending) == (CollectionStatus.ERROR, 3)


# -- time budgets of blocking embeddings ---------------------------------------------------


def test_the_stores_blocking_embed_gives_up_within_the_worker_budget(
    actor_system: ActorSystem, orchestrator: Any, tool_agent: Any, openai_env: Any
) -> None:
    openai_env.delay = 3.0
    _, address = open_store(actor_system, orchestrator, tool_agent, TightStore)
    actor: Any = actor_system.proxy_ask(address, VectorStoreActor)

    started = time.monotonic()
    with pytest.raises(EmbeddingServiceError):
        actor.embed(["postgres database"])
    assert time.monotonic() - started < 2.9  # the provider holds every request 3 s


class TightRequester(Requester):
    """Has a tight worker embed each request."""

    worker_class: ClassVar[type[EmbeddingActor]] = TightWorker


def test_a_worker_answering_a_request_gives_up_within_its_budget(
    actor_system: ActorSystem, openai_env: Any
) -> None:
    openai_env.delay = 3.0
    client = requester(actor_system, TightRequester)

    started = time.monotonic()
    client.request(
        EmbeddingRequest(
            collection="tasks", entries=[{"ref_id": "t1", "ref_type": "task", "text": "x"}]
        )
    )
    [reply] = eventually(client.received, timeout=10)

    assert isinstance(reply, EmbeddingError)
    assert time.monotonic() - started < 2.9  # the provider holds every request 3 s
