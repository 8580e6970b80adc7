"""WordIndex, more: a word found in several tokens each held by several items, a short
word found under several windows, and forgetting an item that is no longer indexed."""

from __future__ import annotations

from akgentic.tool.core.word_index import WordIndex


def test_a_word_inside_several_shared_tokens_finds_every_item() -> None:
    index: WordIndex[str] = WordIndex()
    texts = {"a": "notes", "b": "notes", "c": "notebook", "d": "notebook", "e": "other"}
    for key, text in texts.items():
        index.put(key, text)
    assert index.holding("note") == {"a", "b", "c", "d"}
    assert index.holding("notes") == {"a", "b"}  # the index itself was not altered
    assert index.search("note", texts.__getitem__) == ["a", "b", "c", "d"]


def test_a_short_word_is_found_under_every_window_holding_it() -> None:
    index: WordIndex[int] = WordIndex()
    for key, text in enumerate(["one", "two", "bow", "cat"]):
        index.put(key, text)
    assert index.holding("o") == {0, 1, 2}
    assert index.holding("ow") == {2}


def test_removing_an_item_twice_or_never_indexed_is_harmless() -> None:
    index: WordIndex[str] = WordIndex()
    index.put("a", "alpha beta")
    index.remove("a", "alpha beta")
    index.remove("a", "alpha beta")
    index.remove("ghost", "nothing here")
    assert len(index) == 0
    assert index.holding("alpha") == set()
