"""Core's standard tests, applied to the vector-store card, its stored forms and the
package's public names."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import pytest
import yaml

import akgentic.tool.vector_store as vector_store
from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.testing import CardStandardTests, PublicSurfaceTests, StoredFormTests
from akgentic.tool.core.vector_store import VectorStoreConfig
from akgentic.tool.vector_store import VectorStoreState, VectorStoreTool

STORED = StoredFormTests.stored_entries(__file__, yaml.safe_load)


class TestVectorStoreCard(CardStandardTests):
    @pytest.fixture(autouse=True)
    def _provider(self, openai_env: Any) -> None:
        """The store the card starts talks to the local embeddings server."""

    def make_card(self) -> ToolCard:
        return VectorStoreTool(vector_store_name="#VectorStore-RAG", embedding_provider="azure")


class TestVectorStoreStoredForms(StoredFormTests):
    # The predecessor's state layout is migrated on load: its dump is the new layout, which
    # must then survive persistence unchanged. A CollectionConfig is stored inside the model
    # holding it (no __model__ of its own): its round trip is in the stored-config tests.
    stored_models = StoredFormTests.models_of(
        STORED, [VectorStoreTool, VectorStoreConfig, VectorStoreState]
    )


class TestVectorStoreSurface(PublicSurfaceTests):
    module = vector_store
    public_names = PublicSurfaceTests.names_listed_in(
        Path(__file__).parent / "fixtures" / "public_names.txt"
    )
    # The names loaded lazily on first use are the classes of their modules.
    aliases: ClassVar[Mapping[str, object]] = {
        f"akgentic.tool.vector_store.{path}": getattr(vector_store, path.partition(":")[2])
        for path in (
            "actor:VectorStoreActor",
            "actor:VectorStoreState",
            "embedding_actor:EmbeddingActor",
            "embedding_actor:EmbeddingError",
            "embedding_actor:EmbeddingRequest",
            "embedding_actor:EmbeddingResult",
            "inmemory:InMemoryBackend",
            "vector:EmbeddingService",
            "vector:EmbeddingServiceError",
            "vector:VectorEntry",
            "vector:VectorIndex",
        )
    }
