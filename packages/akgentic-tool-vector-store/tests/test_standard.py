"""Core's standard tests, applied to the vector-store card and its stored forms."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest
import yaml
from pydantic import BaseModel

from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.testing import CardStandardTests, StoredFormTests
from akgentic.tool.core.vector_store import VectorStoreConfig
from akgentic.tool.vector_store import VectorStoreState, VectorStoreTool

STORED: list[dict[str, Any]] = yaml.safe_load(
    (Path(__file__).parent / "fixtures" / "stored_config.yaml").read_text(encoding="utf-8")
)
MODELS: dict[str, type[BaseModel]] = {
    "VectorStoreTool": VectorStoreTool,
    "VectorStoreConfig": VectorStoreConfig,
    "VectorStoreState": VectorStoreState,
}


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
    stored_models: ClassVar[Sequence[BaseModel]] = [
        MODELS[entry["card"]].model_validate(entry["config"])
        for entry in STORED
        if entry["card"] in MODELS
    ]
