"""WordIndex answers exactly as a scan of every folded text would, whatever the changes.

The property tests drive one index and a plain dict of texts through the same random
puts, rewrites and removals, and compare every answer (``search``, ``holding``) with a
substring scan of the dict, for both folding modes the tools use.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from akgentic.tool.core.word_index import WordIndex

KEYS = st.integers(1, 6)
TEXTS = st.sampled_from(
    ["Draft report", "draft-2", "résumé", "ΣΑ plan", "", "q", "Notes on Straße", "a  b\tc"]
)
WORDS = st.sampled_from(
    ["draft", "DRAFT", "af", "é", "report", "-2", "q", "zz", "ΣΑ", "σα", "strasse", "b", "ss"]
)
_OPS = st.lists(
    st.one_of(
        st.tuples(st.just("put"), KEYS, TEXTS),
        st.tuples(st.just("remove"), KEYS),
        st.tuples(st.just("search"), st.lists(WORDS, max_size=3)),
    ),
    max_size=30,
)
FOLDS = st.sampled_from([str.lower, str.casefold])


def _scan(texts: dict[int, str], fold: Any, query: str) -> list[int]:
    """The reference: keys (insertion order) whose folded text holds every word."""
    words = fold(query).split()
    if not words:
        return []
    return [key for key, text in texts.items() if all(w in fold(text) for w in words)]


def _apply(index: WordIndex[int], texts: dict[int, str], op: tuple[Any, ...]) -> None:
    if op[0] == "put":
        _, key, text = op
        index.put(key, text, texts.get(key))
        texts[key] = text
    elif op[0] == "remove" and op[1] in texts:
        index.remove(op[1], texts.pop(op[1]))


@settings(max_examples=200, deadline=None)
@given(FOLDS, _OPS, st.lists(WORDS, min_size=1, max_size=3))
def test_search_answers_as_a_scan_after_any_changes(
    fold: Any, ops: list[Any], last: list[str]
) -> None:
    index: WordIndex[int] = WordIndex(fold)
    texts: dict[int, str] = {}
    for op in ops:
        _apply(index, texts, op)
        if op[0] == "search":
            query = " ".join(op[1])
            assert index.search(query, texts.__getitem__) == _scan(texts, fold, query), query
    query = " ".join(last)
    assert index.search(query, texts.__getitem__) == _scan(texts, fold, query)
    assert len(index) == len(texts)


@settings(max_examples=150, deadline=None)
@given(_OPS, WORDS)
def test_holding_matches_a_scan_of_texts_folded_by_the_caller(ops: list[Any], word: str) -> None:
    """``fold=None``: texts and words arrive folded; ``holding`` and ``in_order`` answer
    as a scan would."""
    index: WordIndex[int] = WordIndex(fold=None)
    texts: dict[int, str] = {}
    for op in ops:
        if op[0] == "put":
            op = (op[0], op[1], op[2].casefold())
        _apply(index, texts, op)
    folded = word.casefold()
    expected = [key for key, text in texts.items() if folded in text]
    assert index.in_order(index.holding(folded)) == expected


def test_words_match_inside_tokens_never_across_them() -> None:
    index: WordIndex[str] = WordIndex()
    texts = {"a": "Deploy the API gateway", "b": "write API docs", "c": "gateway Monitoring"}
    for key, text in texts.items():
        index.put(key, text)
    assert index.search("api", texts.__getitem__) == ["a", "b"]
    assert index.search("GATEWAY api", texts.__getitem__) == ["a"]
    assert index.search("gate", texts.__getitem__) == ["a", "c"]
    assert index.search("api api", texts.__getitem__) == ["a", "b"]
    assert index.search("yth", texts.__getitem__) == []  # "the gateway" spans two tokens
    assert index.search("  ", texts.__getitem__) == []


def test_a_rewritten_item_keeps_its_place_and_a_removed_one_loses_it() -> None:
    index: WordIndex[str] = WordIndex()
    for key in ("a", "b", "c"):
        index.put(key, "shared word")
    index.put("a", "shared again", "shared word")
    assert index.in_order(index.holding("shared")) == ["a", "b", "c"]
    index.remove("a", "shared again")
    index.put("a", "shared once more")
    assert index.in_order(index.holding("shared")) == ["b", "c", "a"]
    index.remove("b", "shared word")
    assert index.in_order(index.holding("shared")) == ["c", "a"]
    index.remove("c", "shared word")
    index.remove("a", "shared once more")
    assert index.holding("shared") == set()
    assert index.holding("sh") == set()
    assert len(index) == 0


def test_search_reads_only_the_items_sharing_the_rarest_word() -> None:
    """2,000 items: a query naming one item reads a handful of texts, not all of them."""
    index: WordIndex[int] = WordIndex()
    texts = {i: f"E{i:05d} in cluster c{i % 9}" for i in range(2_000)}
    for key, text in texts.items():
        index.put(key, text)
    reads: list[int] = []

    def text_of(key: int) -> str:
        reads.append(key)
        return texts[key]

    assert index.search("cluster e01234", text_of) == [1234]
    assert index.search("e0199 c3", text_of) == [1992]
    assert len(reads) <= 11, reads  # 1 + the ten keys whose name starts E0199
