"""The in-memory backend's keyword search answers from a word index, exactly as testing
every document would, after any puts, deletes and restores."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from akgentic.tool.core.vector_store import CollectionConfig, VectorDocument, VectorHit
from akgentic.tool.vector_store.backend import KeywordMatcher, metadata_matches
from akgentic.tool.vector_store.inmemory import InMemoryBackend

REFS = st.sampled_from(["a", "b", "c", "d", "e"])
TEXTS = st.sampled_from(
    ["Notes on Straße", "note", "the big cat", "big  cat!", "ΣΑ notes", "x", "-- --", ""]
)
QUERIES = st.sampled_from(
    ["note", "NOTES", "strasse", "big cat", "cat big", "t", "σα", "--", "- -", "zz", "a x", ""]
)
KINDS = st.sampled_from(["k1", "k2"])


def _scan(backend: InMemoryBackend, text: str, top_k: int, where: dict[str, Any]) -> list[Any]:
    """The reference: every document scored, as the backend did before the index."""
    matcher = KeywordMatcher(text)
    scored = []
    for ref, doc in backend._docs.items():
        if where and not metadata_matches(doc.metadata, where):
            continue
        score = matcher.score(doc.folded)
        if score > 0.0:
            scored.append((score, ref))
    scored.sort(key=lambda item: -item[0])
    return [(ref, score) for score, ref in scored[:top_k]]


def _pairs(hits: list[VectorHit]) -> list[Any]:
    return [(hit.ref, hit.score) for hit in hits]


_OPS = st.lists(
    st.one_of(
        st.tuples(st.just("put"), REFS, TEXTS, KINDS),
        st.tuples(st.just("delete"), REFS),
        st.tuples(st.just("restore")),
        st.tuples(st.just("search"), QUERIES, st.integers(1, 4), st.booleans()),
    ),
    max_size=25,
)


@settings(max_examples=150, deadline=None)
@given(_OPS, QUERIES)
def test_keyword_search_answers_as_a_scan(ops: list[Any], last: str) -> None:
    backend = InMemoryBackend("c", CollectionConfig(dimension=2))
    for op in ops:
        if op[0] == "put":
            _, ref, text, kind = op
            backend.put([VectorDocument(ref=ref, text=text, metadata={"kind": kind})])
        elif op[0] == "delete":
            backend.delete([op[1]])
        elif op[0] == "restore":
            backend = InMemoryBackend.from_record("c", backend.record())
        else:
            _, query, top_k, filtered = op
            where = {"kind": "k1"} if filtered else {}
            got = _pairs(backend.keyword_search(query, top_k, where))
            assert got == _scan(backend, query, top_k, where), query
    assert _pairs(backend.keyword_search(last, 5, {})) == _scan(backend, last, 5, {})


def test_keyword_search_reads_only_documents_holding_a_word() -> None:
    """5,000 documents: a query naming one reads the folded text of that one only."""
    backend = InMemoryBackend("c", CollectionConfig(dimension=2))
    backend.put(
        [VectorDocument(ref=f"r{i}", text=f"doc D{i:05d} in group g{i % 7}") for i in range(5_000)]
    )
    assert _pairs(backend.keyword_search("d00042", 3, {})) == [("r42", 1.0)]
    tested: list[str] = []
    matcher_score = KeywordMatcher.score

    def counting(self: KeywordMatcher, folded: str) -> float:
        tested.append(folded)
        return matcher_score(self, folded)

    KeywordMatcher.score = counting  # type: ignore[method-assign]
    try:
        hits = backend.keyword_search("D04321 zzz", 3, {})
    finally:
        KeywordMatcher.score = matcher_score  # type: ignore[method-assign]
    assert _pairs(hits) == [("r4321", 0.5)]
    assert tested == ["doc d04321 in group g2"]


def test_a_shared_word_keeps_every_holder_as_documents_come_and_go() -> None:
    backend = InMemoryBackend("c", CollectionConfig(dimension=2))
    backend.put([VectorDocument(ref=ref, text="shared word") for ref in ("a", "b", "c")])
    assert [hit.ref for hit in backend.keyword_search("shared", 5, {})] == ["a", "b", "c"]
    backend.delete(["b"])
    assert [hit.ref for hit in backend.keyword_search("shared", 5, {})] == ["a", "c"]
    backend.put([VectorDocument(ref="a", text="other")])  # rewritten: loses the word
    assert [hit.ref for hit in backend.keyword_search("shared", 5, {})] == ["c"]
    backend.put([VectorDocument(ref="b", text="shared again")])
    assert [hit.ref for hit in backend.keyword_search("shared", 5, {})] == ["c", "b"]
    backend.delete(["c", "b"])
    assert backend.keyword_search("shared", 5, {}) == []
