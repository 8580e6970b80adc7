"""One bad text must not poison semantic search for the team, and provider answers of any
shape become advice, never a crash or a leaked credential.

The provider is a real HTTP server on 127.0.0.1 speaking the OpenAI embeddings API (the
real ``openai`` client talks to it), with the refusals a real provider makes: 400 for an
input it will not take, vectors that overflow float32, a 401 whose body echoes the
request's ``Authorization`` header. The store is the real actor in a real team."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any, ClassVar

import pytest

from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core.testing import eventually
from akgentic.tool.core.vector_store import (
    CollectionConfig,
    VectorDocument,
    VectorQuery,
    VectorStoreConfig,
    search_text,
)
from akgentic.tool.vector_store.actor import VectorStoreActor
from akgentic.tool.vector_store.vector import EmbeddingService, EmbeddingServiceError

from .loopback_http import JsonHandler, serve, url_of

DIM = 16
NOTES = CollectionConfig(dimension=DIM)
SECRET = "sk-live-Abc123SECRETvalue987"
QUARANTINED = (
    "document(s) of collection 'notes' could not be embedded (the provider refused them or "
    "returned unusable vectors) and are kept for keyword search only until rewritten:"
)


@dataclass
class Provider:
    """What the stand-in refuses, and what it received."""

    refuse: Callable[[str], bool] = lambda text: False
    overflow: Callable[[str], bool] = lambda text: False
    status: int | None = None
    inputs: list[list[str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def received(self) -> list[str]:
        with self.lock:
            return [text for batch in self.inputs for text in batch]


def _vector(text: str) -> list[float]:
    row = [0.0] * DIM
    for word in text.casefold().split():
        row[sum(word.encode()) % DIM] += 1.0
    row[0] += 0.01
    return row


def _handler(provider: Provider) -> type[BaseHTTPRequestHandler]:
    class Handler(JsonHandler):
        def do_POST(self) -> None:
            body = self.read_json()
            texts = [body["input"]] if isinstance(body["input"], str) else body["input"]
            with provider.lock:
                provider.inputs.append(list(texts))
            if provider.status is not None:
                echoed = {"Authorization": self.headers.get("Authorization", "")}
                self.send_json(provider.status, {"error": {"message": "no", "request": echoed}})
                return
            if any(provider.refuse(text) for text in texts):
                message = "This model's maximum context length is 8192 tokens"
                self.send_json(400, {"error": {"message": message, "type": "invalid_request"}})
                return
            data = [
                {
                    "object": "embedding",
                    "index": i,
                    "embedding": [1e39] * DIM if provider.overflow(text) else _vector(text),
                }
                for i, text in enumerate(texts)
            ]
            usage = {"prompt_tokens": 1, "total_tokens": 1}
            self.send_json(200, {"object": "list", "data": data, "model": "m", "usage": usage})

    return Handler


@pytest.fixture(name="provider")
def provider_fixture(monkeypatch: pytest.MonkeyPatch) -> Iterator[Provider]:
    state = Provider()
    httpd = serve(_handler(state))
    monkeypatch.setenv("OPENAI_BASE_URL", f"{url_of(httpd)}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()


class HardStore(VectorStoreActor):
    flush_delay_seconds: ClassVar[float] = 0.05


def make_store(system: ActorSystem, orchestrator: Any, max_chars: int = 8000) -> Any:
    config = VectorStoreConfig(name="#HardStore", embedding_max_chars=max_chars)
    orch = system.proxy_ask(orchestrator, Orchestrator)
    address = orch.getChildrenOrCreate(HardStore, config)
    store = system.proxy_ask(address, VectorStoreActor)
    store.create_collection("notes", NOTES)
    return store


def quarantine_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The store's warnings about documents it quarantined, as logged."""
    return [m for m in caplog.messages if "could not be embedded" in m]


def test_an_over_long_query_is_that_callers_problem_only(
    actor_system: ActorSystem, orchestrator: Any, provider: Provider
) -> None:
    provider.refuse = lambda text: len(text) > 300
    store = make_store(actor_system, orchestrator, max_chars=200)
    store.upsert("notes", [VectorDocument(ref="db", text="database migration plan")])
    eventually(lambda: store.collection_stats("notes").embedded == 1)
    huge = "database " * 4000  # 36,000 characters

    answer = store.search("notes", VectorQuery(text=huge))
    other = search_text(store, "notes", VectorQuery(text="migration plan"), delay=0.05)

    assert answer.status == "degraded"
    assert "36000 characters" in (answer.reason or "")
    assert "limit of 200" in (answer.reason or "")
    assert [hit.ref for hit in answer.hits] == ["db"]  # keyword matches still offered
    assert other.status == "ok"  # everyone else keeps semantic search
    assert [hit.ref for hit in other.hits] == ["db"]
    assert all(len(text) <= 200 for text in provider.received())  # never sent


def test_a_document_the_provider_refuses_is_quarantined_not_retried(
    actor_system: ActorSystem,
    orchestrator: Any,
    provider: Provider,
    caplog: pytest.LogCaptureFixture,
) -> None:
    provider.refuse = lambda text: "POISON" in text
    store = make_store(actor_system, orchestrator)
    docs = [VectorDocument(ref=f"d{n}", text=f"innocent note number {n}") for n in range(7)]
    docs.insert(3, VectorDocument(ref="bad", text="POISON pill for the embedder"))

    with caplog.at_level(logging.INFO):
        receipt = store.upsert("notes", docs)
        eventually(lambda: store.collection_stats("notes").embedded == 7)
    stats = store.collection_stats("notes")
    assert (stats.documents, stats.pending, stats.failed) == (8, 0, 1)
    assert any("'bad'" in r.getMessage() for r in caplog.records)
    worker = f"embedding worker #embed-notes-{receipt.request_id}"
    [refused] = [m for m in caplog.messages if m.startswith(worker)]
    assert refused.startswith(f"{worker}: text 3 of 8 refused: ")
    assert "maximum context length" in refused
    poison_sent = sum("POISON" in text for text in provider.received())

    # No failure episode: the team's searches stay semantic, and the next documents are
    # embedded without the quarantined one being sent along again.
    result = search_text(store, "notes", VectorQuery(text="innocent note number 5"), delay=0.05)
    assert result.status == "ok"
    store.upsert("notes", [VectorDocument(ref="later", text="a later note")])
    eventually(lambda: store.collection_stats("notes").embedded == 8)
    store.search("notes", VectorQuery(vector=tuple([1.0] * DIM)))  # the retry hook
    assert sum("POISON" in text for text in provider.received()) == poison_sent
    keyword = store.search("notes", VectorQuery(text="POISON pill"))
    assert "bad" in [hit.ref for hit in keyword.hits]  # kept, found by keyword

    # Rewriting the document gives it a new chance.
    store.upsert("notes", [VectorDocument(ref="bad", text="now a harmless note")])
    eventually(lambda: store.collection_stats("notes").embedded == 9)


def test_a_document_past_the_bound_is_embedded_from_its_beginning(
    actor_system: ActorSystem, orchestrator: Any, provider: Provider
) -> None:
    provider.refuse = lambda text: len(text) > 100
    store = make_store(actor_system, orchestrator, max_chars=100)
    long_text = "kubernetes cluster upgrade " + "filler " * 2000 + "zebra"

    store.upsert("notes", [VectorDocument(ref="long", text=long_text)])
    eventually(lambda: store.collection_stats("notes").embedded == 1)

    assert [len(text) for text in provider.received()] == [100]
    keyword = store.search("notes", VectorQuery(text="zebra"))  # the whole text is kept
    assert [hit.ref for hit in keyword.hits] == ["long"]


def test_overflowing_vectors_from_the_provider_are_quarantined(
    actor_system: ActorSystem,
    orchestrator: Any,
    provider: Provider,
    caplog: pytest.LogCaptureFixture,
) -> None:
    provider.overflow = lambda text: "HUGE" in text
    store = make_store(actor_system, orchestrator)
    docs = [
        VectorDocument(ref="ok1", text="plain note"),
        VectorDocument(ref="huge", text="HUGE values"),
        VectorDocument(ref="ok2", text="another note"),
    ]
    with caplog.at_level(logging.WARNING):
        store.upsert("notes", docs)
        eventually(lambda: store.collection_stats("notes").embedded == 2)
    assert store.collection_stats("notes").failed == 1
    assert quarantine_warnings(caplog) == [f"#HardStore: 1 {QUARANTINED} 'huge'"]
    assert search_text(store, "notes", VectorQuery(text="plain note"), delay=0.05).status == "ok"


def test_the_warning_names_ten_quarantined_documents_and_counts_the_rest(
    actor_system: ActorSystem,
    orchestrator: Any,
    provider: Provider,
    caplog: pytest.LogCaptureFixture,
) -> None:
    provider.overflow = lambda text: "HUGE" in text
    store = make_store(actor_system, orchestrator)
    # eleven: the smallest count that leaves one unnamed
    docs = [VectorDocument(ref=f"huge{n:02d}", text=f"HUGE values {n}") for n in range(11)]
    docs.append(VectorDocument(ref="fine", text="plain note"))

    with caplog.at_level(logging.WARNING):
        store.upsert("notes", docs)
        eventually(lambda: store.collection_stats("notes").embedded == 1)

    named = ", ".join(f"'huge{n:02d}'" for n in range(10))
    assert quarantine_warnings(caplog) == [f"#HardStore: 11 {QUARANTINED} {named} and 1 more"]
    assert store.collection_stats("notes").failed == 11


def test_a_query_the_provider_refuses_degrades_only_that_query(
    actor_system: ActorSystem, orchestrator: Any, provider: Provider
) -> None:
    provider.refuse = lambda text: "POISON" in text
    store = make_store(actor_system, orchestrator)
    store.upsert("notes", [VectorDocument(ref="db", text="database plan")])
    eventually(lambda: store.collection_stats("notes").embedded == 1)

    refused = search_text(store, "notes", VectorQuery(text="POISON database"), delay=0.05)
    fine = search_text(store, "notes", VectorQuery(text="database plan"), delay=0.05)

    assert refused.status == "degraded"
    assert "refused this query" in (refused.reason or "")
    assert fine.status == "ok"
    sent = sum("POISON" in text for text in provider.received())
    search_text(store, "notes", VectorQuery(text="POISON database"), delay=0.05)
    assert sum("POISON" in text for text in provider.received()) == sent  # not re-sent


@pytest.mark.parametrize("values", [[1e39] * DIM, [3e38] * DIM])
def test_an_overflowing_upsert_vector_changes_nothing(
    actor_system: ActorSystem, orchestrator: Any, provider: Provider, values: list[float]
) -> None:
    store = make_store(actor_system, orchestrator)
    old = [1.0] + [0.0] * (DIM - 1)
    store.upsert("notes", [VectorDocument(ref="a", text="old text", vector=old)])

    refused = (
        "^document 'a': vector contains NaN or infinity, or values too large for float32; "
        "nothing was changed$"
    )
    with pytest.raises(ValueError, match=refused):
        store.upsert("notes", [VectorDocument(ref="a", text="new text", vector=values)])

    hits = store.search("notes", VectorQuery(vector=tuple(old), top_k=1)).hits
    assert [(hit.ref, hit.text) for hit in hits] == [("a", "old text")]


def test_a_401_echoing_the_key_does_not_leak_it(
    actor_system: ActorSystem,
    orchestrator: Any,
    provider: Provider,
    caplog: pytest.LogCaptureFixture,
) -> None:
    provider.status = 401
    with pytest.raises(EmbeddingServiceError) as raised:
        EmbeddingService("m", max_retries=0).embed(["hello"])
    assert "401" in str(raised.value)
    assert SECRET not in str(raised.value)
    assert "Bearer ***" in str(raised.value)

    store = make_store(actor_system, orchestrator)
    with caplog.at_level(logging.DEBUG):
        store.upsert("notes", [VectorDocument(ref="d", text="some note")])
        eventually(lambda: store.collection_stats("notes").failed == 1)
        result = store.search("notes", VectorQuery(text="note"))
    assert result.status == "degraded"
    assert SECRET not in (result.reason or "")
    assert "401" in (result.reason or "")
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "401" in logged
    assert SECRET not in logged


def test_credentials_named_in_an_error_are_masked_whatever_their_value() -> None:
    # A proxy's own credentials, which this process never saw: masked by their name.
    error = EmbeddingServiceError(
        'proxy refused: x-proxy-token=tok_9f8e7d6c5b; {"password": "hunter2long"}; '
        "Authorization: Bearer abcdef123456"
    )

    assert str(error) == (
        'proxy refused: x-proxy-token=***; {"password": "***"}; Authorization: Bearer ***'
    )
