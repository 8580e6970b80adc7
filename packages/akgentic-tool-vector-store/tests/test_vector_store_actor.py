"""The store actor in a real akgentic-core team, embedding through a real local HTTP
server that speaks the OpenAI embeddings API."""

from __future__ import annotations

import json
import logging
import threading
import time
from typing import Any, ClassVar

import numpy as np
import pykka
import pytest

from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.messages.orchestrator import ErrorMessage, StartMessage
from akgentic.core.orchestrator import Orchestrator
from akgentic.core.utils.deserializer import deserialize_object
from akgentic.tool.core.event import ToolStateEvent
from akgentic.tool.core.factory import ToolFactory
from akgentic.tool.core.testing import eventually, orchestrator_events, spawn_tool_agent
from akgentic.tool.core.vector_store import (
    VECTOR_STORE_NAME,
    CollectionConfig,
    UnknownCollectionError,
    VectorDocument,
    VectorQuery,
    VectorSearchResult,
    VectorStore,
    VectorStoreConfig,
    lookup_vector_store,
    search_text,
)
from akgentic.tool.vector_store.actor import VectorStoreActor
from akgentic.tool.vector_store.embedding_actor import EmbeddingActor
from akgentic.tool.vector_store.event import VectorStoreStateEvent
from akgentic.tool.vector_store.tool import VectorStoreTool

DIM = 64
NOTES = CollectionConfig(dimension=DIM)
DOCS = [
    VectorDocument(ref="db", text="database migration plan for postgres", metadata={"kind": "a"}),
    VectorDocument(ref="ui", text="redesign the login page colours", metadata={"kind": "b"}),
    VectorDocument(ref="ops", text="rotate the production certificates", metadata={"kind": "a"}),
]


class ImpatientWorker(EmbeddingActor):
    timeout_seconds: ClassVar[float] = 0.3


class ImpatientStore(VectorStoreActor):
    """Workers with a 0.3 s budget, so a hung provider fails fast."""

    worker_class: ClassVar[type[EmbeddingActor]] = ImpatientWorker


class VanishingWorker(EmbeddingActor):
    """Stands for a worker killed mid-call: it stops without ever reporting."""

    timeout_seconds: ClassVar[float] = 0.1

    def run(self, key: Any, payload: Any, cache: Any) -> None:
        self.stop()


class ForgottenJobsStore(VectorStoreActor):
    worker_class: ClassVar[type[EmbeddingActor]] = VanishingWorker
    worker_report_margin_seconds: ClassVar[float] = 0.1


class QuickRetryStore(VectorStoreActor):
    """The real actor with a short failure window, so recovery fits in a test."""

    negative_ttl_seconds: ClassVar[float] = 0.3
    flush_delay_seconds: ClassVar[float] = 0.05


def bind(agent: Any, **card: Any) -> VectorStore:
    """Wire a VectorStoreTool on ``agent`` (as a team would) and look the store up."""
    tool = VectorStoreTool(**card)
    ToolFactory([tool], observer=agent)
    store = lookup_vector_store(agent, tool.vector_store_name)
    assert store is not None
    return store


def custom_store(system: ActorSystem, orchestrator: Any, agent: Any, cls: type) -> VectorStore:
    orch = system.proxy_ask(orchestrator, Orchestrator)
    orch.getChildrenOrCreate(cls, VectorStoreConfig(name="#QuickStore"))
    store = lookup_vector_store(agent, "#QuickStore")
    assert store is not None
    return store


def wait_embedded(store: VectorStore, collection: str, count: int) -> None:
    eventually(lambda: store.collection_stats(collection).embedded == count)


def worker_names(system: ActorSystem, orchestrator: Any) -> list[str]:
    orch = system.proxy_ask(orchestrator, Orchestrator)
    return [m.sender.name for m in orch.get_messages(message_type=StartMessage) if m.sender]


def test_one_store_per_name_whatever_the_number_of_agents(
    actor_system: ActorSystem, orchestrator: Any, tool_agent: Any, openai_env: Any
) -> None:
    other = spawn_tool_agent(actor_system, orchestrator, "@Other")
    first, second = VectorStoreTool(), VectorStoreTool()
    factory = ToolFactory([first], observer=tool_agent)
    ToolFactory([second], observer=other)
    named = VectorStoreTool(vector_store_name="#VectorStore-RAG")
    ToolFactory([named], observer=other)

    assert first.store_address is not None
    assert first.store_address == second.store_address
    assert named.store_address not in (None, first.store_address)
    assert factory.get_tools() == []
    assert factory.get_system_prompts() == []
    assert factory.get_commands() == {}
    names = worker_names(actor_system, orchestrator)
    assert names.count(VECTOR_STORE_NAME) == 1
    assert names.count("#VectorStore-RAG") == 1


def test_upsert_returns_at_once_and_named_workers_embed_later(
    actor_system: ActorSystem, orchestrator: Any, tool_agent: Any, openai_env: Any
) -> None:
    openai_env.gate = threading.Event()  # the provider hangs until released
    store = bind(tool_agent)
    store.create_collection("notes", NOTES)

    started = time.monotonic()
    receipt = store.upsert("notes", DOCS)
    answer = store.search("notes", VectorQuery(text="database"))
    elapsed = time.monotonic() - started

    assert elapsed < 2.0  # the provider holds the request for up to 10 s
    assert (receipt.accepted, receipt.pending) == (3, 3)
    assert receipt.request_id is not None
    assert answer.status == "pending"
    assert [hit.ref for hit in answer.hits] == ["db"]
    assert answer.hits[0].match == "keyword"
    assert store.collection_stats("notes").pending == 3
    expected_worker = f"#embed-notes-{receipt.request_id}"
    eventually(lambda: expected_worker in worker_names(actor_system, orchestrator))

    openai_env.gate.set()
    wait_embedded(store, "notes", 3)
    stats = store.collection_stats("notes")
    assert (stats.documents, stats.pending, stats.failed) == (3, 0, 0)
    orch = actor_system.proxy_ask(orchestrator, Orchestrator)
    eventually(lambda: all(not m.name.startswith("#embed-") for m in orch.get_team()))


def test_text_search_ranks_by_cosine_and_honours_threshold_and_filter(
    tool_agent: Any, openai_env: Any, hash_embed: Any
) -> None:
    store = bind(tool_agent)
    store.create_collection("notes", NOTES)
    store.upsert("notes", DOCS)
    wait_embedded(store, "notes", 3)

    result = search_text(store, "notes", VectorQuery(text="postgres database migration"))

    assert result.status == "ok"
    assert result.hits[0].ref == "db"
    assert result.hits[0].match == "vector"
    expected = float(hash_embed(["postgres database migration"])[0] @ hash_embed([DOCS[0].text])[0])
    assert result.hits[0].score == pytest.approx(expected, abs=1e-5)
    assert result.hits[0].metadata == {"kind": "a"}

    strict = search_text(
        store, "notes", VectorQuery(text="postgres database migration", score_threshold=0.99)
    )
    assert strict.hits == []
    filtered = search_text(
        store, "notes", VectorQuery(text="postgres database migration", where={"kind": "b"})
    )
    assert [hit.ref for hit in filtered.hits] == ["ui"]
    by_vector = store.search("notes", VectorQuery(vector=tuple(hash_embed(["login page"])[0])))
    assert by_vector.status == "ok"
    assert by_vector.hits[0].ref == "ui"


def test_one_text_is_embedded_once_however_many_callers_ask(
    tool_agent: Any, openai_env: Any
) -> None:
    store = bind(tool_agent)
    store.create_collection("notes", NOTES)
    store.upsert("notes", [DOCS[0].model_copy(update={"vector": [1.0] * DIM})])
    openai_env.gate = threading.Event()
    answers: list[str] = []

    def ask() -> None:
        answers.append(store.search("notes", VectorQuery(text="shared question")).status)

    threads = [threading.Thread(target=ask) for _ in range(5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    openai_env.gate.set()
    # A generous budget: when this test runs first, the worker also imports the provider
    # client before its request (about a second on a busy machine).
    result = search_text(
        store, "notes", VectorQuery(text="shared question"), attempts=200, delay=0.05
    )

    assert answers == ["pending"] * 5
    assert result.status == "ok"
    assert openai_env.inputs() == [["shared question"]]
    assert search_text(store, "notes", VectorQuery(text="shared question")).status == "ok"
    assert len(openai_env.requests) == 1  # answered from the query cache


def test_a_late_embedding_never_overwrites_newer_data(tool_agent: Any, openai_env: Any) -> None:
    store = bind(tool_agent)
    store.create_collection("notes", NOTES)
    openai_env.gate = threading.Event()
    store.upsert("notes", [VectorDocument(ref="a", text="old text about apples")])
    store.upsert("notes", [VectorDocument(ref="b", text="soon deleted")])
    explicit = [0.0] * DIM
    explicit[3] = 2.0
    store.upsert("notes", [VectorDocument(ref="a", text="new text", vector=explicit)])
    assert store.delete("notes", ["b"]) == 1

    openai_env.gate.set()
    eventually(lambda: len(openai_env.requests) == 2)
    eventually(lambda: store.collection_stats("notes").pending == 0)

    entries = {entry.ref: entry for entry in store.entries("notes")}  # type: ignore[attr-defined]
    assert set(entries) == {"a"}
    assert entries["a"].text == "new text"
    np.testing.assert_allclose(entries["a"].vector, np.eye(DIM)[3], atol=1e-6)


def test_provider_failure_degrades_to_keywords_with_a_single_warning(
    tool_agent: Any, openai_env: Any, caplog: pytest.LogCaptureFixture
) -> None:
    openai_env.fail_status = 503
    caplog.set_level(logging.WARNING, logger="akgentic.tool.vector_store")
    caplog.set_level(logging.DEBUG, logger="akgentic.tool.vector_store.embedding_actor")
    store = bind(tool_agent)
    store.create_collection("notes", NOTES)
    receipt = store.upsert("notes", DOCS)
    eventually(lambda: store.collection_stats("notes").failed == 3)

    results = [
        search_text(store, "notes", VectorQuery(text="production certificates"), delay=0.02)
        for _ in range(3)
    ]
    store.upsert("notes", [VectorDocument(ref="late", text="certificates renewal checklist")])
    later = search_text(store, "notes", VectorQuery(text="certificates"), delay=0.02)

    assert {result.status for result in results} == {"degraded"}
    assert results[0].hits[0].ref == "ops"
    assert results[0].hits[0].score == 1.0
    assert "provider unavailable" in (results[0].reason or "")
    assert later.status == "degraded"
    assert {hit.ref for hit in later.hits} == {"ops", "late"}
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1, [r.getMessage() for r in warnings]
    assert "notes" in warnings[0].getMessage()
    assert len(openai_env.requests) == 2  # the documents, retried once by the client; no more
    worker = f"embedding worker #embed-notes-{receipt.request_id} failed: "
    [failed] = [r for r in caplog.records if r.getMessage().startswith(worker)]
    assert failed.levelno == logging.DEBUG  # the store's one warning speaks for the episode
    assert "503" in failed.getMessage()


def test_embeddings_are_retried_after_the_failure_window(
    actor_system: ActorSystem,
    orchestrator: Any,
    tool_agent: Any,
    openai_env: Any,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="akgentic.tool.vector_store")
    openai_env.fail_status = 500
    store = custom_store(actor_system, orchestrator, tool_agent, QuickRetryStore)
    store.create_collection("notes", NOTES)
    store.upsert("notes", DOCS)
    eventually(lambda: store.collection_stats("notes").failed == 3)

    openai_env.fail_status = None

    def semantic() -> VectorSearchResult | None:
        found = search_text(store, "notes", VectorQuery(text="login page"), delay=0.05)
        return found if found.status == "ok" else None

    # Keyword-only until the failure window (0.3 s) is over, semantic again after it. Asked
    # until then rather than after a fixed sleep: on a loaded machine the window opens
    # when the failure is reported, which can be well after the provider failed.
    result = eventually(semantic)
    assert result.hits[0].ref == "ui"
    wait_embedded(store, "notes", 3)
    assert "embeddings for collection 'notes' work again" in caplog.messages


def test_a_vector_search_also_finds_the_documents_still_waiting_for_a_vector(
    actor_system: ActorSystem, orchestrator: Any, tool_agent: Any, openai_env: Any
) -> None:
    openai_env.fail_status = 500
    store = custom_store(actor_system, orchestrator, tool_agent, QuickRetryStore)
    store.create_collection("notes", NOTES)
    axis = tuple(1.0 if i == 0 else 0.0 for i in range(DIM))
    ready = VectorDocument(
        ref="ready", text="deploy checklist", metadata={"kind": "a"}, vector=axis
    )
    store.upsert("notes", [ready, *DOCS])
    eventually(lambda: store.collection_stats("notes").failed == 3)

    # A ready query vector needs no provider: the failed documents still have no vector.
    both = store.search("notes", VectorQuery(text="login page", vector=axis, top_k=5))
    only_one = store.search("notes", VectorQuery(text="page", vector=axis, top_k=1))
    vector_only = store.search("notes", VectorQuery(vector=axis, top_k=5))
    filtered = store.search(
        "notes", VectorQuery(text="login page", vector=axis, top_k=5, where={"kind": "a"})
    )

    assert both.status == "ok"
    assert [(hit.ref, hit.match, hit.score) for hit in both.hits] == [
        ("ready", "vector", pytest.approx(1.0)),
        ("ui", "keyword", 1.0),
    ]
    assert [hit.ref for hit in only_one.hits] == ["ready"]  # top_k holds for the merge
    assert [hit.ref for hit in vector_only.hits] == ["ready"]  # no text, no keyword hits
    assert [hit.ref for hit in filtered.hits] == ["ready"]  # ``where`` holds for them too
    assert store.collection_stats("notes").embedded == 1


def test_the_worker_budget_reaches_the_http_call(
    actor_system: ActorSystem, orchestrator: Any, tool_agent: Any, openai_env: Any
) -> None:
    store = custom_store(actor_system, orchestrator, tool_agent, ImpatientStore)
    store.create_collection("notes", NOTES)
    store.upsert("notes", DOCS[:1])  # a first, answered request warms the client up
    eventually(lambda: store.collection_stats("notes").embedded == 1)
    openai_env.gate = threading.Event()  # from now on the provider never answers

    started = time.monotonic()
    store.upsert("notes", DOCS[1:2])
    eventually(lambda: store.collection_stats("notes").failed == 1, timeout=5.0)
    elapsed = time.monotonic() - started

    # 0.3 s of requests plus one client backoff (<= 0.5 s), far below the service's own
    # 10 s per-request timeout that would apply if the budget did not reach the call.
    assert elapsed < 3.0, f"a 0.3 s worker budget took {elapsed:.2f} s to give up"
    result = store.search("notes", VectorQuery(text="database"))
    assert result.status == "degraded"
    assert "Timeout" in (result.reason or "")
    openai_env.gate.set()


def test_a_worker_that_never_reports_does_not_leave_documents_pending(
    actor_system: ActorSystem, orchestrator: Any, tool_agent: Any, openai_env: Any
) -> None:
    store = custom_store(actor_system, orchestrator, tool_agent, ForgottenJobsStore)
    store.create_collection("notes", NOTES)
    store.upsert("notes", DOCS)
    assert store.collection_stats("notes").pending == 3

    time.sleep(0.3)  # past the worker's budget and margin
    result = store.search("notes", VectorQuery(text="certificates"))

    stats = store.collection_stats("notes")
    assert (stats.pending, stats.failed) == (0, 3)
    assert result.status == "degraded"
    assert "never reported" in (result.reason or "")


def test_an_exhausted_poll_budget_keeps_the_keyword_answer(
    tool_agent: Any, openai_env: Any
) -> None:
    store = bind(tool_agent)
    store.create_collection("notes", NOTES)
    store.upsert("notes", [DOCS[1].model_copy(update={"vector": [0.5] * DIM})])
    openai_env.gate = threading.Event()

    result = search_text(store, "notes", VectorQuery(text="login"), attempts=2, delay=0.05)

    assert result.status == "degraded"
    assert [hit.ref for hit in result.hits] == ["ui"]
    assert "2 x 0.05 s" in (result.reason or "")
    openai_env.gate.set()


def test_a_provider_answering_another_dimension_counts_as_a_failure(
    tool_agent: Any, openai_env: Any
) -> None:
    store = bind(tool_agent)
    store.create_collection("small", CollectionConfig(dimension=32))
    store.upsert("small", DOCS[:1])
    eventually(lambda: store.collection_stats("small").failed == 1)
    result = search_text(store, "small", VectorQuery(text="database"), delay=0.02)
    assert result.status == "degraded"
    assert "dimension 64, expected 32" in (result.reason or "")


def test_bad_calls_raise_with_the_culprit_and_change_nothing(
    tool_agent: Any, openai_env: Any
) -> None:
    nan = float("nan")
    store = bind(tool_agent)
    assert store.create_collection("notes", NOTES).documents == 0
    assert store.create_collection("notes", NOTES).documents == 0  # idempotent
    with pytest.raises(ValueError, match="different dimension"):
        store.create_collection("notes", CollectionConfig(dimension=8))
    with pytest.raises(ValueError, match="invalid collection name"):
        store.create_collection("no spaces", NOTES)
    with pytest.raises(UnknownCollectionError, match="ghost"):
        store.upsert("ghost", DOCS)
    with pytest.raises(ValueError, match="'bad': vector has 2 values"):
        store.upsert("notes", [DOCS[0], VectorDocument(ref="bad", text="x", vector=[1.0, 2.0])])
    with pytest.raises(ValueError, match="'worse': vector contains NaN"):
        # a document to embed first: the vectors after it are checked all the same
        store.upsert("notes", [DOCS[0], VectorDocument(ref="worse", text="x", vector=[nan] * DIM)])
    short = f"^document 'short': vector has 1 values, collection 'notes' expects {DIM}$"
    with pytest.raises(ValueError, match=short):
        store.upsert("notes", [DOCS[0], VectorDocument(ref="short", text="x", vector=[1.0])])
    with pytest.raises(ValueError, match="query vector has 2 values"):
        store.search("notes", VectorQuery(vector=(1.0, 0.0)))
    both = r"^pass either a VectorQuery or query_vector/top_k, not both$"
    with pytest.raises(TypeError, match=both):
        store.search("notes", VectorQuery(text="x"), 3)  # type: ignore[call-overload]
    with pytest.raises(TypeError, match=r"^search needs a VectorQuery, or a query_vector$"):
        store.search("notes")  # type: ignore[call-overload]
    nothing = store.upsert("notes", [])
    assert (nothing.collection, nothing.accepted, nothing.pending, nothing.request_id) == (
        "notes",
        0,
        0,
        None,
    )
    assert store.collection_stats("notes").documents == 0
    assert openai_env.requests == []
    given = store.upsert("notes", [VectorDocument(ref="v", text="x", vector=[1.0] * DIM)])
    # every vector given: nothing to wait for, no embedding request
    assert (given.accepted, given.pending, given.request_id) == (1, 0, None)
    assert openai_env.requests == []


def test_collections_are_independent_and_can_be_dropped(tool_agent: Any, openai_env: Any) -> None:
    store = bind(tool_agent)
    store.create_collection("planning", NOTES)
    store.create_collection("graph", NOTES)
    store.upsert("planning", DOCS[:2])
    store.upsert("graph", DOCS[2:])
    wait_embedded(store, "planning", 2)
    wait_embedded(store, "graph", 1)

    hits = search_text(store, "graph", VectorQuery(text="database migration")).hits
    assert {hit.ref for hit in hits} == {"ops"}
    assert store.list_collections() == ["graph", "planning"]
    assert store.drop_collection("graph") is True
    assert store.drop_collection("graph") is False
    assert store.list_collections() == ["planning"]
    with pytest.raises(UnknownCollectionError):
        store.search("graph", VectorQuery(text="x"))


def test_store_answers_many_callers_while_the_provider_hangs(
    actor_system: ActorSystem, orchestrator: Any, tool_agent: Any, openai_env: Any
) -> None:
    openai_env.gate = threading.Event()
    store = bind(tool_agent)
    store.create_collection("notes", NOTES)
    agents = [spawn_tool_agent(actor_system, orchestrator, f"@A{i}") for i in range(10)]
    proxies = [lookup_vector_store(agent, VECTOR_STORE_NAME) for agent in agents]
    errors: list[BaseException] = []

    def work(index: int, proxy: Any) -> None:
        try:
            for n in range(5):
                proxy.upsert("notes", [VectorDocument(ref=f"{index}-{n}", text=f"item {n}")])
                proxy.search("notes", VectorQuery(text=f"question {index}"))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    started = time.monotonic()
    threads = [threading.Thread(target=work, args=(i, p)) for i, p in enumerate(proxies)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started

    assert errors == []
    assert elapsed < 5.0, f"100 calls took {elapsed:.1f} s with a hung provider"
    assert store.collection_stats("notes").documents == 50
    openai_env.gate.set()
    wait_embedded(store, "notes", 50)


def test_changes_are_announced_as_numbered_tool_state_events(
    actor_system: ActorSystem, orchestrator: Any, tool_agent: Any, openai_env: Any
) -> None:
    store = bind(tool_agent)
    store.create_collection("notes", NOTES)
    store.create_collection("notes", NOTES)  # no change, no event
    store.upsert("notes", [DOCS[0], DOCS[1].model_copy(update={"vector": [1.0] * DIM})])
    eventually(lambda: store.collection_stats("notes").embedded == 2)
    store.delete("notes", ["ui", "missing"])
    store.delete("notes", ["missing"])  # nothing removed, no event
    store.drop_collection("notes")

    def stream() -> list[Any]:
        return [
            e
            for e in orchestrator_events(actor_system, orchestrator, ToolStateEvent)
            if e.tool_id == VECTOR_STORE_NAME
        ]

    eventually(lambda: len(stream()) == 5)
    events = stream()
    assert [e.seq for e in events] == [1, 2, 3, 4, 5]
    payloads = [e.payload for e in events]
    assert all(isinstance(p, VectorStoreStateEvent) for p in payloads)
    assert payloads[0] == VectorStoreStateEvent(collection="notes", created=True)
    assert payloads[1] == VectorStoreStateEvent(
        collection="notes", upserted=["db", "ui"], embedded=["ui"]
    )
    assert payloads[2] == VectorStoreStateEvent(collection="notes", embedded=["db"])
    assert payloads[3] == VectorStoreStateEvent(collection="notes", removed=["ui"])
    assert payloads[4] == VectorStoreStateEvent(collection="notes", dropped=True)
    again = deserialize_object(json.loads(json.dumps(events[1].model_dump())))
    assert isinstance(again.payload, VectorStoreStateEvent)
    assert again.payload == payloads[1]


def test_a_worker_outliving_its_store_exits_quietly(
    actor_system: ActorSystem,
    orchestrator: Any,
    tool_agent: Any,
    openai_env: Any,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="akgentic.tool.vector_store.embedding_actor")
    openai_env.gate = threading.Event()
    store = bind(tool_agent)
    store.create_collection("notes", NOTES)
    receipt = store.upsert("notes", DOCS[:1])
    orch = actor_system.proxy_ask(orchestrator, Orchestrator)
    worker_name = f"#embed-notes-{receipt.request_id}"
    eventually(lambda: orch.get_team_member(worker_name) is not None)
    [store_ref] = pykka.ActorRegistry.get_by_class(VectorStoreActor)

    store_ref.stop()  # a hard stop, bypassing the graceful one that waits for workers
    last_state = orch.get_states()[str(lookup_address(actor_system, orchestrator).agent_id)]
    openai_env.gate.set()
    eventually(lambda: orch.get_team_member(worker_name) is None)

    assert orch.get_messages(message_type=ErrorMessage) == []
    assert last_state.collections["notes"].texts == [DOCS[0].text]
    assert last_state.collections["notes"].vector_refs == []
    assert f"embedding worker {worker_name}: the store is gone" in caplog.messages


def lookup_address(system: ActorSystem, orchestrator: Any) -> Any:
    orch = system.proxy_ask(orchestrator, Orchestrator)
    return next(
        m.sender
        for m in orch.get_messages(message_type=StartMessage)
        if m.sender and m.sender.name == VECTOR_STORE_NAME
    )


def test_an_azure_store_embeds_through_its_deployment(
    tool_agent: Any, embedding_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", embedding_server.base_url)
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "azure-key")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    store = bind(tool_agent, embedding_provider="azure", embedding_model="team-embeddings")
    store.create_collection("notes", NOTES)
    store.upsert("notes", DOCS)
    wait_embedded(store, "notes", 3)

    result = search_text(store, "notes", VectorQuery(text="login page"), delay=0.05)

    assert result.hits[0].ref == "ui"
    paths = {entry["path"].split("?")[0] for entry in embedding_server.requests}
    assert paths == {"/openai/deployments/team-embeddings/embeddings"}


class OneWorkerStore(VectorStoreActor):
    max_document_workers: ClassVar[int] = 1


def test_documents_queue_behind_a_busy_worker_and_go_out_together(
    actor_system: ActorSystem, orchestrator: Any, tool_agent: Any, openai_env: Any
) -> None:
    openai_env.gate = threading.Event()
    store = custom_store(actor_system, orchestrator, tool_agent, OneWorkerStore)
    store.create_collection("notes", NOTES)
    first = store.upsert("notes", [VectorDocument(ref="a", text="alpha")])
    second = store.upsert("notes", [VectorDocument(ref="b", text="beta old")])
    store.upsert("notes", [VectorDocument(ref="c", text="gamma")])
    store.upsert("notes", [VectorDocument(ref="d", text="delta")])
    store.delete("notes", ["c"])
    store.upsert("notes", [VectorDocument(ref="b", text="beta new")])

    assert first.request_id is not None
    assert (second.request_id, second.pending) == (None, 1)
    assert store.collection_stats("notes").pending == 3  # a in flight, d and b queued
    eventually(lambda: len(openai_env.requests) == 1)
    openai_env.gate.set()
    wait_embedded(store, "notes", 3)

    assert openai_env.inputs() == [["alpha"], ["delta", "beta new"]]
    assert store.collection_stats("notes").pending == 0


class SmallBatchStore(VectorStoreActor):
    max_document_workers: ClassVar[int] = 1
    retry_batch_limit: ClassVar[int] = 2


def test_a_queue_longer_than_a_batch_goes_out_in_batches_in_order_across_collections(
    actor_system: ActorSystem, orchestrator: Any, tool_agent: Any, openai_env: Any
) -> None:
    openai_env.gate = threading.Event()
    store = custom_store(actor_system, orchestrator, tool_agent, SmallBatchStore)
    store.create_collection("gone", NOTES)
    store.create_collection("notes", NOTES)
    store.create_collection("other", NOTES)
    store.upsert("notes", [VectorDocument(ref="a", text="alpha")])  # takes the only worker
    store.upsert("gone", [VectorDocument(ref="g", text="gone soon")])
    store.delete("gone", ["g"])  # the oldest queue holds nothing left to send
    store.upsert("notes", [VectorDocument(ref=r, text=f"note {r}") for r in "bcde"])
    store.upsert("other", [VectorDocument(ref="z", text="other zeta")])
    eventually(lambda: len(openai_env.requests) == 1)

    openai_env.gate.set()
    wait_embedded(store, "notes", 5)
    wait_embedded(store, "other", 1)

    assert openai_env.inputs() == [
        ["alpha"],
        ["note b", "note c"],
        ["other zeta"],
        ["note d", "note e"],
    ]


def test_queued_documents_are_not_sent_to_a_failing_provider(
    actor_system: ActorSystem, orchestrator: Any, tool_agent: Any, openai_env: Any
) -> None:
    openai_env.gate = threading.Event()
    openai_env.fail_status = 503
    store = custom_store(actor_system, orchestrator, tool_agent, OneWorkerStore)
    store.create_collection("notes", NOTES)
    for doc in DOCS:
        store.upsert("notes", [doc])
    eventually(lambda: len(openai_env.requests) == 1)
    openai_env.gate.set()

    eventually(lambda: store.collection_stats("notes").failed == 3)
    # Only the first document ever reached the provider (the client retries it once).
    assert {tuple(batch) for batch in openai_env.inputs()} == {(DOCS[0].text,)}


def test_a_store_outlives_many_more_workers_than_it_keeps_track_of(
    tool_agent: Any, openai_env: Any
) -> None:
    # Finished workers are pruned from the store's children past 32; the forty-first
    # request is served like the first.
    store = bind(tool_agent)
    store.create_collection("notes", NOTES)
    for n in range(41):
        store.upsert("notes", [VectorDocument(ref=f"n{n}", text=f"note number {n}")])
        wait_embedded(store, "notes", n + 1)
    assert len(openai_env.requests) == 41
    assert store.collection_stats("notes").pending == 0
