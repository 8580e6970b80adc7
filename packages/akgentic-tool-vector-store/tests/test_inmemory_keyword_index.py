"""The in-memory backend's keyword search narrows its candidates with core's word index.

(akgentic-tool-core's ``test_core_word_index.py`` proves the index against a full scan;
this file checks the backend's wiring: documents are indexed casefolded, puts, deletes and
restores reach the index, scores and order stay those of the backend's matcher, and a
search scores only the documents holding a query word.)
"""

from __future__ import annotations

from akgentic.tool.core.vector_store import CollectionConfig, VectorDocument, VectorHit
from akgentic.tool.vector_store.backend import KeywordMatcher
from akgentic.tool.vector_store.inmemory import InMemoryBackend


def _refs(hits: list[VectorHit]) -> list[tuple[str, float]]:
    return [(hit.ref, hit.score) for hit in hits]


def test_casefolded_matches_follow_puts_deletes_and_restores() -> None:
    backend = InMemoryBackend("c", CollectionConfig(dimension=2))
    texts = {"a": "Notes on Straße", "b": "shared note", "c": "big cat", "d": "note STRASSE"}
    backend.put([VectorDocument(ref=ref, text=text) for ref, text in texts.items()])
    assert _refs(backend.keyword_search("strasse", 5, {})) == [("a", 1.0), ("d", 1.0)]
    backend.put([VectorDocument(ref="a", text="other")])  # rewritten: loses its words
    backend.delete(["d"])
    assert _refs(backend.keyword_search("note", 5, {})) == [("b", 1.0)]
    backend = InMemoryBackend.from_record("c", backend.record())
    backend.put([VectorDocument(ref="e", text="Note on cats")])
    assert _refs(backend.keyword_search("note cat", 5, {"kind": "x"})) == []
    # Both words in "e"; one of two in "b" and "c", which keep the collection's order.
    expected = [("e", 1.0), ("b", 0.5), ("c", 0.5)]
    assert _refs(backend.keyword_search("note cat", 5, {})) == expected


def test_keyword_search_scores_only_documents_holding_a_word() -> None:
    backend = InMemoryBackend("c", CollectionConfig(dimension=2))
    backend.put(
        [VectorDocument(ref=f"r{i}", text=f"doc D{i:05d} in group g{i % 7}") for i in range(5_000)]
    )
    assert _refs(backend.keyword_search("d00042", 3, {})) == [("r42", 1.0)]
    scored: list[str] = []
    score = KeywordMatcher.score

    def counting(self: KeywordMatcher, folded: str) -> float:
        scored.append(folded)
        return score(self, folded)

    KeywordMatcher.score = counting  # type: ignore[method-assign]
    try:
        hits = backend.keyword_search("D04321 zzz", 3, {})
    finally:
        KeywordMatcher.score = score  # type: ignore[method-assign]
    assert _refs(hits) == [("r4321", 0.5)]
    assert scored == ["doc d04321 in group g2"]
