"""Semantic search with no API key, on the team's real vector store and a local model.

:class:`~akgentic.tool.core.testing.standard.vector_search.VectorSearchTests` runs a
consumer against the kit's in-memory stand-in for the store. This class runs it against
the real ``#VectorStore`` card of akgentic-tool-vector-store, embedding with a local
model2vec model: a tiny one the test writes (its vocabulary folds "automobile" onto
"car"), with every provider key removed and downloads off. A query then finds by meaning
what keyword search misses, with nothing but the package installed.

The store and its ``local-embeddings`` extra are no dependency of akgentic-tool-core nor
of a consumer package: they are looked up by name when the test runs, and the test is
skipped where they are not installed (a package's isolated run).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, ClassVar

import pytest

from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.factory import ToolFactory
from akgentic.tool.core.testing.actors import ToolTestAgent
from akgentic.tool.core.testing.binding import ToolRetry, Tools, card_callables
from akgentic.tool.core.testing.waiting import eventually
from akgentic.tool.core.vector_store import VECTOR_STORE_NAME, lookup_vector_store

__all__ = ["LocalEmbeddingTests"]


# Where each provider would find a key: all removed, so only the local model can embed.
_PROVIDER_KEYS = ("OPENAI_API_KEY", "AZURE_OPENAI_API_KEY", "AZURE_OPENAI_AD_TOKEN")


class LocalEmbeddingTests(ABC):
    """A query finds by meaning, through the real store and a local model, what its words
    do not match.

    Supply :meth:`make_card` (the consumer card on its defaults), :meth:`seed` writing items
    of which only :attr:`found_by_meaning` means "car" (say, "repair the automobile") and
    none holds the word, returning how many documents the store must embed, and
    :meth:`search` returning what a query finds, best first, and the answer's note.
    """

    collection: ClassVar[str]
    found_by_meaning: ClassVar[list[str]]

    @abstractmethod
    def make_card(self) -> ToolCard:
        """The consumer card, configured as a team would by default."""

    @abstractmethod
    def seed(self, tools: Tools) -> int:
        """Write the items; return how many documents the collection must hold embedded."""

    @abstractmethod
    def search(self, tools: Tools, query: str, **options: Any) -> tuple[list[str], str | None]:
        """What ``query`` finds (names, best first) and the answer's note."""

    def test_found_by_meaning_without_an_api_key(
        self, tool_agent: ToolTestAgent, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        pytest.importorskip("model2vec")
        store_tool = pytest.importorskip("akgentic.tool.vector_store.tool")
        model_kit = pytest.importorskip("akgentic.tool.vector_store.testing")
        for name in _PROVIDER_KEYS:
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("HF_HUB_OFFLINE", "1")
        folder = model_kit.write_static_model(tmp_path / "tiny-model")
        monkeypatch.setenv("AKGENTIC_LOCAL_EMBEDDING_MODEL", str(folder))

        cards = [store_tool.VectorStoreTool(), self.make_card()]  # every default
        tools = card_callables(ToolFactory(cards, observer=tool_agent, retry_exception=ToolRetry))
        documents = self.seed(tools)
        store = lookup_vector_store(tool_agent, VECTOR_STORE_NAME)
        assert store is not None, "the team has no vector store"
        eventually(
            lambda: store.collection_stats(self.collection).embedded == documents,
            what=f"{documents} documents embedded in {self.collection!r}",
        )

        assert self.search(tools, "car", mode="keyword")[0] == []  # no item holds the word
        found, note = self.search(tools, "car")
        assert found == self.found_by_meaning
        assert note is None, f"the store answered, yet the note says {note!r}"
        assert self.search(tools, "car", mode="vector")[0] == self.found_by_meaning
