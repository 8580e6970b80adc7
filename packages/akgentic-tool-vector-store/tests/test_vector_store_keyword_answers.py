"""Every keyword-only answer of the store (a query text past the limit, a text the
provider refused, a failure episode, a query still being embedded) keeps to the caller's
``top_k`` and ``where``, and says why it is keyword-only in words the caller can act on.

The provider is the hardening tests' OpenAI-compatible stand-in on 127.0.0.1; the store is
the real actor in a real team."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.testing import eventually
from akgentic.tool.core.vector_store import VectorDocument, VectorQuery

from .test_vector_store_embedding_hardening import Provider, make_store, provider_fixture

__all__ = ["provider_fixture"]  # the stand-in provider, a fixture here too

DOCS = [
    VectorDocument(ref=f"{team}{n}", text=f"database note {n}", metadata={"team": team})
    for team in ("a", "b")
    for n in range(3)
]


def _stored(system: ActorSystem, orchestrator: Any, max_chars: int = 8000) -> Any:
    store = make_store(system, orchestrator, max_chars=max_chars)
    store.upsert("notes", DOCS)
    eventually(lambda: store.collection_stats("notes").embedded == len(DOCS))
    return store


def _teams(hits: list[Any]) -> set[Any]:
    return {hit.metadata["team"] for hit in hits}


def test_a_query_past_the_limit_keeps_to_top_k_and_where(
    actor_system: ActorSystem, orchestrator: Any, provider: Provider
) -> None:
    store = _stored(actor_system, orchestrator, max_chars=40)
    text = "database " * 10  # 90 characters

    answer = store.search("notes", VectorQuery(text=text, top_k=2, where={"team": "b"}))

    assert answer.status == "degraded"
    assert (len(answer.hits), _teams(answer.hits)) == (2, {"b"})
    assert answer.reason == (
        "query text is 90 characters, over this store's limit of 40 (embedding_max_chars); "
        "keyword matches only. Search with a shorter text (a few key phrases) for semantic "
        "matches"
    )


def test_a_refused_query_keeps_to_top_k_and_where(
    actor_system: ActorSystem, orchestrator: Any, provider: Provider
) -> None:
    store = _stored(actor_system, orchestrator)
    provider.refuse = lambda text: "POISON" in text
    query = VectorQuery(text="POISON database", top_k=1, where={"team": "a"})

    def refused() -> Any:
        found = store.search("notes", query)  # "pending" until the refusal is learnt
        return found if found.status == "degraded" else None

    answer = eventually(refused)

    assert (len(answer.hits), _teams(answer.hits)) == (1, {"a"})
    assert answer.reason == (
        "the embedding provider refused this query text (it is too long or unusable for "
        "the embedding model); keyword matches only. Rephrase it, shorter"
    )


def test_during_a_failure_episode_keyword_answers_keep_to_top_k_and_where(
    actor_system: ActorSystem, orchestrator: Any, provider: Provider
) -> None:
    store = _stored(actor_system, orchestrator)
    provider.status = 503
    query = VectorQuery(text="database note", top_k=2, where={"team": "a"})
    eventually(lambda: store.search("notes", query).status == "degraded")

    answer = store.search("notes", query)

    assert (len(answer.hits), _teams(answer.hits)) == (2, {"a"})
    assert (answer.reason or "").startswith("embeddings unavailable, keyword matches only: ")


def test_a_query_being_embedded_answers_keyword_hits_within_top_k_and_where(
    actor_system: ActorSystem,
    orchestrator: Any,
    provider: Provider,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = _stored(actor_system, orchestrator)
    gate = threading.Event()
    monkeypatch.setattr(provider, "refuse", lambda text: not gate.wait(10))  # held

    try:
        answer = store.search("notes", VectorQuery(text="database", top_k=2, where={"team": "b"}))
    finally:
        gate.set()

    assert answer.status == "pending"
    assert answer.reason == "the query text is being embedded"
    assert (len(answer.hits), _teams(answer.hits)) == (2, {"b"})
