"""The kit's LocalEmbeddingTests, on a small consumer written here: it passes when the
consumer asks the team's store for meaning, and fails when the consumer only matches words.

Needs akgentic-tool-vector-store with its local-embeddings extra (the workspace has both);
skipped where they are missing, as the class itself is.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import pytest

from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.testing import LocalEmbeddingTests, Tools, ToolTestAgent
from akgentic.tool.core.vector_store import (
    VECTOR_STORE_NAME,
    CollectionConfig,
    VectorDocument,
    VectorQuery,
    lookup_vector_store,
    search_text,
)

MEMOS = ["repair the automobile", "bake the bread"]


class MemoTool(ToolCard):
    """Memos kept in the team's store; found by their words, and by meaning if it can."""

    collection: str = "kit_memos"

    def _store(self) -> Any:
        return lookup_vector_store(self.get_observer(), VECTOR_STORE_NAME)  # type: ignore[arg-type]

    def meaning(self, query: str) -> list[str]:
        wanted = VectorQuery(text=query, score_threshold=0.3)
        result = search_text(self._store(), self.collection, wanted)  # waits for the embedding
        return [hit.text for hit in result.hits if hit.match == "vector"]

    def get_tools(self) -> list[Callable[..., Any]]:
        def remember(memos: list[str]) -> int:
            """Keep memos."""
            store = self._store()
            store.create_collection(self.collection, CollectionConfig())
            documents = [VectorDocument(ref=f"m{i}", text=memo) for i, memo in enumerate(memos)]
            return int(store.upsert(self.collection, documents).accepted)

        def recall(query: str, mode: str = "hybrid") -> dict[str, Any]:
            """Memos holding every word of the query, then memos that mean it."""
            words = [memo for memo in MEMOS if all(w in memo for w in query.split())]
            meant = [] if mode == "keyword" else self.meaning(query)
            found = ([] if mode == "vector" else words) + [m for m in meant if m not in words]
            return {"found": found, "note": None}

        return [remember, recall]


class TestMemoLocalEmbeddings(LocalEmbeddingTests):
    collection = "kit_memos"
    found_by_meaning: ClassVar[list[str]] = ["repair the automobile"]

    def make_card(self) -> ToolCard:
        return MemoTool()

    def seed(self, tools: Tools) -> int:
        return int(tools["remember"](MEMOS))

    def search(self, tools: Tools, query: str, **options: Any) -> tuple[list[str], str | None]:
        answer = tools["recall"](query, **options)
        return answer["found"], answer["note"]


class WordsOnlyMemoTool(MemoTool):
    """Never asks the store for meaning."""

    def meaning(self, query: str) -> list[str]:
        return []


class WordsOnly(TestMemoLocalEmbeddings):
    __test__ = False

    def make_card(self) -> ToolCard:
        return WordsOnlyMemoTool()


def test_a_consumer_that_only_matches_words_fails(
    tool_agent: ToolTestAgent, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(AssertionError):
        WordsOnly().test_found_by_meaning_without_an_api_key(tool_agent, tmp_path, monkeypatch)
