"""The vector store core, more: search_text's bounded wait for a query embedding (settled,
or degraded with the latest keyword hits and the budget in the reason), the shortest
store name accepted, and the hint a refused collection name gives.

search_text is given a scripted store: an object answering ``search`` with the results a
store returns while the query's embedding is pending, then ready.
"""

from __future__ import annotations

import time

import pytest

from akgentic.tool.core.vector_store import (
    VectorHit,
    VectorQuery,
    VectorSearchResult,
    resolve_vector_store_name,
    search_text,
    validate_collection_name,
)

QUERY = VectorQuery(text="where is the plan")


def _hit(ref: str) -> VectorHit:
    return VectorHit(ref=ref, score=0.5, text=ref, match="keyword")


def _pending(ref: str) -> VectorSearchResult:
    return VectorSearchResult(status="pending", hits=[_hit(ref)], reason="embedding")


class ScriptedStore:
    """Answers ``search`` with the given results in turn (the last one from then on)."""

    def __init__(self, *answers: VectorSearchResult) -> None:
        self.answers = list(answers)
        self.calls = 0

    def search(self, collection: str, query: VectorQuery) -> VectorSearchResult:
        assert (collection, query) == ("notes", QUERY)
        answer = self.answers[min(self.calls, len(self.answers) - 1)]
        self.calls += 1
        return answer


def test_a_settled_answer_is_returned_as_soon_as_it_arrives() -> None:
    ready = VectorSearchResult(status="ok", hits=[_hit("doc:ready")])
    store = ScriptedStore(_pending("p0"), _pending("p1"), ready, _pending("never"))
    result = search_text(store, "notes", QUERY, attempts=5, delay=0.0)  # type: ignore[arg-type]
    assert result == ready
    assert store.calls == 3


def test_a_first_answer_that_is_not_pending_is_returned_at_once() -> None:
    degraded = VectorSearchResult(status="degraded", hits=[_hit("kw")], reason="down")
    store = ScriptedStore(degraded, VectorSearchResult(status="ok"))
    assert search_text(store, "notes", QUERY, attempts=3, delay=0.0) == degraded  # type: ignore[arg-type]
    assert store.calls == 1


def test_an_embedding_never_ready_degrades_to_the_latest_keyword_hits() -> None:
    store = ScriptedStore(_pending("p0"), _pending("p1"), _pending("p2"), _pending("p3"))
    started = time.monotonic()
    result = search_text(store, "notes", QUERY, attempts=3, delay=0.01)  # type: ignore[arg-type]
    assert time.monotonic() - started < 0.6  # three waits of 0.01 s, not the default delay
    assert store.calls == 4
    assert result.status == "degraded"
    assert [hit.ref for hit in result.hits] == ["p3"]
    assert result.reason is not None
    assert "3 x 0.01 s" in result.reason


def test_the_shortest_store_name_is_a_hash_and_one_character() -> None:
    assert resolve_vector_store_name("#V") == "#V"
    with pytest.raises(ValueError, match="starts with '#'"):
        resolve_vector_store_name("#")


def test_a_refused_collection_name_says_how_it_must_start() -> None:
    with pytest.raises(ValueError, match="starting with a letter or digit"):
        validate_collection_name("_hidden")
