"""KeywordCorpus: every query word must occur in an item's text; lazy rebuilds."""

from __future__ import annotations

import pytest

from akgentic.tool.core.keyword_corpus import KeywordCorpus


class Source:
    """A stand-in for a state: items plus a mutation counter."""

    def __init__(self, items: dict[str, str]) -> None:
        self.items = items
        self.version = 0
        self.builds = 0

    def pairs(self) -> tuple[list[str], list[str]]:
        self.builds += 1
        return list(self.items), list(self.items.values())


def _search(corpus: KeywordCorpus[str], source: Source, query: str) -> list[str]:
    corpus.sync(source, source.version, source.pairs)
    return corpus.search(query)


def test_every_word_must_match_case_insensitively_in_item_order() -> None:
    source = Source(
        {
            "a": "Deploy the API gateway",
            "b": "write API docs",
            "c": "gateway Monitoring",
            "d": "nothing here",
        }
    )
    corpus: KeywordCorpus[str] = KeywordCorpus()
    assert _search(corpus, source, "api") == ["a", "b"]
    assert _search(corpus, source, "GATEWAY api") == ["a"]
    assert _search(corpus, source, "gate") == ["a", "c"]  # substring match
    assert _search(corpus, source, "api api") == ["a", "b"]  # repeated words count once
    assert _search(corpus, source, "missing") == []
    assert _search(corpus, source, "  ") == []


def test_words_never_match_across_two_items() -> None:
    source = Source({"a": "tail", "b": "head", "c": "x\x00y"})
    corpus: KeywordCorpus[str] = KeywordCorpus()
    assert _search(corpus, source, "tail head") == []
    assert _search(corpus, source, "ilhe") == []
    assert _search(corpus, source, "y") == ["c"]  # a separator inside a text is neutralised
    assert _search(corpus, source, "head") == ["b"]  # the last item is reachable


def test_rebuilds_only_when_the_source_or_its_version_changes() -> None:
    source = Source({"a": "alpha"})
    corpus: KeywordCorpus[str] = KeywordCorpus()
    assert _search(corpus, source, "alpha") == ["a"]
    source.items["b"] = "alphabet"
    assert _search(corpus, source, "alpha") == ["a"]  # same version: the old corpus
    assert source.builds == 1
    source.version += 1
    assert _search(corpus, source, "alpha") == ["a", "b"]
    assert source.builds == 2
    other = Source({"z": "alpha"})
    assert _search(corpus, other, "alpha") == ["z"]  # another state object


def test_keys_and_texts_must_pair_up() -> None:
    corpus: KeywordCorpus[str] = KeywordCorpus()
    with pytest.raises(ValueError, match="2 keys but 1 texts"):
        corpus.sync(object(), 0, lambda: (["a", "b"], ["only one"]))


def test_an_empty_source_matches_nothing() -> None:
    corpus: KeywordCorpus[str] = KeywordCorpus()
    assert _search(corpus, Source({}), "x") == []
    assert _search(corpus, Source({"a": ""}), "x") == []
